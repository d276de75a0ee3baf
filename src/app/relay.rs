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
    /// Take at most this many events per connection in any minute and answer the rest
    /// `rate-limited:`, as many public relays do (default: no limit).
    #[arg(long, value_name = "N")]
    pub max_events_per_minute: Option<u32>,
    /// Ask NIP-13 proof of work of this many bits on every event (said in its NIP-11 document,
    /// and `pow:` to an event without it), as some public relays do (default: none).
    #[arg(long, value_name = "BITS", default_value_t = 0)]
    pub min_pow: u8,
}

pub fn run(args: RelayArgs) -> Result<(), String> {
    super::runtime()?
        .block_on(crate::net::relay::run_standalone(
            std::net::SocketAddr::new(args.bind, args.port),
            args.db,
            args.max_events_per_minute,
            args.min_pow,
        ))
        .map_err(|e| e.to_string())
}
