//! One folder per game. Each implements [`crate::engine::Game`], ships its variant config, its
//! view, its rules spec in `protocol/rules/`, and passes the generic simulation test.

pub mod tolerance;
