//! `tolerance relay`: the embedded relay on its own, for LAN play and tests.

use std::path::PathBuf;

#[derive(Debug, Clone, clap::Args)]
pub struct RelayArgs {
    #[arg(long, default_value_t = 7447)]
    pub port: u16,
    /// Keep events on disk in this directory (LMDB).
    #[arg(long)]
    pub db: Option<PathBuf>,
    /// Address to bind; loopback unless you mean to serve a LAN.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,
}

pub fn run(args: RelayArgs) -> Result<(), String> {
    super::runtime()?
        .block_on(crate::net::relay::run_standalone(
            std::net::SocketAddr::new(args.bind, args.port),
            args.db,
        ))
        .map_err(|e| e.to_string())
}
