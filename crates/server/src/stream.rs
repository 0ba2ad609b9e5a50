//! A connection's byte stream: a plain socket (TCP, or the local Unix socket of
//! `--socket`), or TLS over either after the client's SSLRequest.
//!
//! Invariants:
//! (1) The plain path costs two predictable branches per read or write (TLS or not, then
//!     TCP or local): the TLS state is boxed, so plain connections carry no TLS memory.
//! (2) A write is complete when `write_all` returns: on TLS it also flushes rustls'
//!     buffered records to the socket.
//! (3) The upgrade happens at most once, before authentication; a failed TLS handshake
//!     leaves the stream `Closed` and the connection ends.
//! (4) With the worker's send ring, a plain write is queued and goes out with the other
//!     replies of the worker's pass in one system call (`manycore_uring`); whatever the
//!     kernel did not take is written here, so the caller's contract is unchanged.
//!     `start_send` and `finish_send` split such a write in two, so that the caller can
//!     read meanwhile; `write_all` is both at once.

use crate::tls::TlsInfo;
use manycore_uring::{Progress, Sender};
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpStream, UnixStream};
use tokio_rustls::server::TlsStream;
use tokio_rustls::TlsAcceptor;

pub enum Stream {
    Plain(Socket),
    Tls(Box<TlsStream<Socket>>),
    /// A TLS handshake failed after the socket was handed to it.
    Closed,
}

/// The connected socket under a stream.
pub enum Socket {
    Tcp(TcpStream),
    /// A client of the local socket (`--socket`).
    Local(UnixStream),
}

impl AsRawFd for Socket {
    fn as_raw_fd(&self) -> RawFd {
        match self {
            Socket::Tcp(socket) => socket.as_raw_fd(),
            Socket::Local(socket) => socket.as_raw_fd(),
        }
    }
}

impl AsyncRead for Socket {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Socket::Tcp(socket) => Pin::new(socket).poll_read(cx, buf),
            Socket::Local(socket) => Pin::new(socket).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Socket {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Socket::Tcp(socket) => Pin::new(socket).poll_write(cx, buf),
            Socket::Local(socket) => Pin::new(socket).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Socket::Tcp(socket) => Pin::new(socket).poll_flush(cx),
            Socket::Local(socket) => Pin::new(socket).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Socket::Tcp(socket) => Pin::new(socket).poll_shutdown(cx),
            Socket::Local(socket) => Pin::new(socket).poll_shutdown(cx),
        }
    }
}

impl Stream {
    pub async fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Plain(stream) => stream.read(buf).await,
            Stream::Tls(stream) => stream.read(buf).await,
            Stream::Closed => Err(io::ErrorKind::NotConnected.into()),
        }
    }

    /// Invariants (2) and (4). `buffer` is cleared once written, keeping its capacity.
    pub async fn write_all(
        &mut self,
        buffer: &mut Vec<u8>,
        sender: Option<&mut Sender>,
    ) -> io::Result<()> {
        if let Some(sender) = sender {
            if self.start_send(buffer, sender) {
                return self.finish_send(sender, buffer).await;
            }
        }
        let result = self.write_rest(buffer).await;
        buffer.clear();
        result
    }

    /// Hands `buffer` to the worker's ring (invariant (4)) and leaves it empty; false, with
    /// `buffer` untouched, where the ring does not apply (TLS, nothing to send).
    pub fn start_send(&self, buffer: &mut Vec<u8>, sender: &mut Sender) -> bool {
        let Stream::Plain(_) = self else {
            return false;
        };
        if buffer.is_empty() {
            return false;
        }
        sender.send(std::mem::take(buffer));
        true
    }

    /// Completes what `start_send` began, if anything is in flight: `buffer` gets the
    /// ring's buffer back, cleared, after whatever the kernel did not take is written here.
    pub async fn finish_send(
        &mut self,
        sender: &mut Sender,
        buffer: &mut Vec<u8>,
    ) -> io::Result<()> {
        let (result, returned) = match sender.take_done() {
            Progress::NoSend => return Ok(()),
            Progress::Done(sent) => sent,
            Progress::OnItsWay => std::future::poll_fn(|cx| sender.poll_done(cx)).await,
        };
        assert!(
            buffer.is_empty(),
            "nothing is built into the output while its previous contents are in flight"
        );
        *buffer = returned;
        // An error took nothing (a full socket buffer, a failed ring, a reset peer): the
        // write below sends it all or reports the socket's error.
        let taken = result.unwrap_or(0);
        let written = if taken == buffer.len() {
            Ok(())
        } else {
            self.write_rest(&buffer[taken..]).await
        };
        buffer.clear();
        written
    }

    async fn write_rest(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Stream::Plain(stream) => stream.write_all(buf).await,
            Stream::Tls(stream) => {
                stream.write_all(buf).await?;
                stream.flush().await
            }
            Stream::Closed => Err(io::ErrorKind::NotConnected.into()),
        }
    }

    /// Reads exactly `buf.len()` bytes (the handshake reads its first packet this way so
    /// that no byte of a following TLS ClientHello is taken off the socket).
    pub async fn read_exact(&mut self, buf: &mut [u8]) -> io::Result<()> {
        match self {
            Stream::Plain(stream) => stream.read_exact(buf).await.map(drop),
            Stream::Tls(stream) => stream.read_exact(buf).await.map(drop),
            Stream::Closed => Err(io::ErrorKind::NotConnected.into()),
        }
    }

    /// Runs the TLS handshake over the plain stream (invariant (3)).
    pub async fn upgrade(&mut self, acceptor: &TlsAcceptor) -> io::Result<()> {
        let Stream::Plain(plain) = std::mem::replace(self, Stream::Closed) else {
            return Err(io::Error::other("TLS requested twice"));
        };
        *self = Stream::Tls(Box::new(acceptor.accept(plain).await?));
        Ok(())
    }

    /// Whether the client connected through the local socket (under TLS or not).
    pub fn is_local(&self) -> bool {
        match self {
            Stream::Plain(socket) => matches!(socket, Socket::Local(_)),
            Stream::Tls(stream) => matches!(stream.get_ref().0, Socket::Local(_)),
            Stream::Closed => false,
        }
    }

    /// The negotiated protocol and cipher; None on a plain socket.
    pub fn tls_info(&self) -> Option<TlsInfo> {
        match self {
            Stream::Tls(stream) => Some(crate::tls::connection_info(stream.get_ref().1)),
            Stream::Plain(_) | Stream::Closed => None,
        }
    }
}
