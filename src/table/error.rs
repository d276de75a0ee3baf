//! What can stop a table client, by kind, each in words a person reads. The commands print
//! them; callers that can do something about one kind match on it (`watch` waits while a table
//! is not seated yet, a lost relay suggests `resume`).

use crate::net::NetError;

#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// The relays: none reachable, none took our event, a fetch failed.
    #[error(transparent)]
    Relay(#[from] NetError),
    /// The table is not on the relays, or not where it was looked for.
    #[error("{0}")]
    NotFound(String),
    /// The table exists but its seats are not fixed yet (its lobby is open or starting).
    #[error("{0}")]
    NotSeated(String),
    /// The table is cancelled, or its seating does not check out.
    #[error("{0}")]
    Seating(String),
    /// The announcement or its setup cannot be played by this program (another game, a setup
    /// the game refuses, the wrong number of seats).
    #[error("{0}")]
    Setup(String),
    /// This machine's own record of the table (journal, secrets, meta) could not be read or
    /// written.
    #[error("{0}")]
    Journal(String),
    /// The lobby refused us or the host gave up on the table.
    #[error("{0}")]
    Lobby(String),
    /// The table did not move for longer than this client waits.
    #[error("{0}")]
    Stalled(String),
    /// The person at this seat chose to leave: what follows, in words, and the table's story as
    /// this seat saw it until then (the history keeps tables left as well as tables finished).
    #[error("{words}")]
    Left { words: String, story: Vec<String> },
    /// Our own event could not be signed (a key problem).
    #[error("signing our event: {0}")]
    Signing(String),
}

/// The commands speak `Result<_, String>` at their outer edge: an error becomes its words there.
impl From<TableError> for String {
    fn from(e: TableError) -> String {
        e.to_string()
    }
}

pub type Result<T> = std::result::Result<T, TableError>;
