//! A TCP proxy that adds a fixed delay each way, to measure tables as if the relay were far
//! away (`benches/table.rs` with `TABLE_BENCH_DELAY_MS`).
//!
//! Every chunk read from one side is written to the other side `one_way` after it was read, in
//! order; nothing limits bandwidth. So a request and its answer pay `2 × one_way` on top of the
//! loopback round trip, which is what a player far from the relay pays. Each side is set to
//! `TCP_NODELAY` so the proxy itself adds no Nagle wait.

use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::task::{JoinHandle, JoinSet};
use tokio::time::Instant;

/// A running delay proxy on a loopback port; dropping it stops it and closes its connections.
#[derive(Debug)]
pub struct DelayProxy {
    addr: SocketAddr,
    task: JoinHandle<()>,
}

impl DelayProxy {
    /// Listens on a free loopback port and forwards each connection to `upstream`, holding
    /// every chunk for `one_way` in each direction.
    pub async fn start(upstream: SocketAddr, one_way: Duration) -> io::Result<Self> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
        let addr = listener.local_addr()?;
        let task = tokio::spawn(async move {
            let mut connections = JoinSet::new();
            loop {
                tokio::select! {
                    accepted = listener.accept() => {
                        let Ok((client, _)) = accepted else {
                            tokio::time::sleep(Duration::from_millis(50)).await;
                            continue;
                        };
                        connections.spawn(async move {
                            // A failed connection only concerns its own client.
                            let _ = relay_connection(client, upstream, one_way).await;
                        });
                    }
                    Some(_) = connections.join_next(), if !connections.is_empty() => {}
                }
            }
        });
        Ok(Self { addr, task })
    }

    /// The proxy's address.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// `ws://127.0.0.1:port`: the relay's URL through this proxy.
    pub fn ws_url(&self) -> String {
        format!("ws://{}", self.addr)
    }
}

impl Drop for DelayProxy {
    fn drop(&mut self) {
        // Aborting drops the task's JoinSet, which aborts every connection with it.
        self.task.abort();
    }
}

async fn relay_connection(
    client: TcpStream,
    upstream: SocketAddr,
    one_way: Duration,
) -> io::Result<()> {
    let server = TcpStream::connect(upstream).await?;
    client.set_nodelay(true)?;
    server.set_nodelay(true)?;
    let (client_read, client_write) = client.into_split();
    let (server_read, server_write) = server.into_split();
    let up = pipe(client_read, server_write, one_way);
    let down = pipe(server_read, client_write, one_way);
    let _ = tokio::join!(up, down);
    Ok(())
}

/// Copies `from` to `to`, each chunk `delay` after it was read. A reader and a writer run
/// apart so that reading never waits for the delay: chunks read 1 ms apart leave 1 ms apart.
async fn pipe(mut from: OwnedReadHalf, mut to: OwnedWriteHalf, delay: Duration) {
    let (tx, mut rx) = mpsc::unbounded_channel::<(Instant, Vec<u8>)>();
    let reader = async move {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match from.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if tx.send((Instant::now(), buf[..n].to_vec())).is_err() {
                        break;
                    }
                }
            }
        }
        // Dropping `tx` lets the writer finish what is queued, then close its side.
    };
    let writer = async move {
        while let Some((read_at, chunk)) = rx.recv().await {
            tokio::time::sleep_until(read_at + delay).await;
            if to.write_all(&chunk).await.is_err() {
                return;
            }
        }
        let _ = to.shutdown().await;
    };
    tokio::join!(reader, writer);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes cross unchanged and in order, and an echo through the proxy takes at least two
    /// delays (once each way); the upper side is not asserted, the machine may be busy.
    #[tokio::test]
    async fn echo_through_the_proxy_pays_the_delay_both_ways() {
        let echo = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await.unwrap();
        let echo_addr = echo.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut s, _) = echo.accept().await.unwrap();
            let mut buf = vec![0u8; 1024];
            loop {
                let n = s.read(&mut buf).await.unwrap();
                if n == 0 {
                    break;
                }
                s.write_all(&buf[..n]).await.unwrap();
            }
        });
        let delay = Duration::from_millis(30);
        let proxy = DelayProxy::start(echo_addr, delay).await.unwrap();
        let mut c = TcpStream::connect(proxy.local_addr()).await.unwrap();
        let start = std::time::Instant::now();
        let message: Vec<u8> = (0..200u8).collect();
        c.write_all(&message[..100]).await.unwrap();
        c.write_all(&message[100..]).await.unwrap();
        let mut got = vec![0u8; message.len()];
        c.read_exact(&mut got).await.unwrap();
        assert!(start.elapsed() >= 2 * delay, "{:?}", start.elapsed());
        assert_eq!(got, message);
        // Closing our side closes the far side, which closes ours.
        c.shutdown().await.unwrap();
        let mut rest = Vec::new();
        c.read_to_end(&mut rest).await.unwrap();
        assert!(rest.is_empty());
    }
}
