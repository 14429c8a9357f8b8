//! Datagram I/O on the descriptors of attached hosts: TUN devices opened with
//! `IFF_TUN | IFF_NO_PI` (one IPv4 datagram per read(2) and write(2)), or any descriptor with
//! the same one-datagram-per-call semantics (a `SOCK_SEQPACKET` socket in tests).
//!
//! Descriptors are non-blocking: a read that finds nothing returns `EAGAIN`, and so does a write
//! to a socket whose buffer is full; such datagrams wait in a bounded backlog until the
//! descriptor is writable. The descriptors belong to the caller and are never closed here.

use std::collections::VecDeque;
use std::io;
use std::os::fd::RawFd;

use celltcp_engine::SimTime;

/// Largest IPv4 datagram (RFC 791: the total length is 16 bits).
pub const MAX_DATAGRAM: usize = 65_535;

/// Datagrams read from one descriptor in one step of the loop, so that a busy sender cannot
/// starve the others or the engine.
pub const READ_BATCH: usize = 64;

/// Datagrams waiting for a descriptor to become writable before more are dropped.
pub const BACKLOG_LIMIT: usize = 4_096;

/// What one read found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Read {
    /// A datagram of this many bytes.
    Datagram(usize),
    /// Nothing to read now.
    Empty,
    /// The other end is gone (a socket peer closed; a TUN device never reports this).
    Closed,
}

/// What one write did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Written {
    Sent,
    /// The descriptor cannot take it now (`EAGAIN`): keep it for later.
    WouldBlock,
    /// The descriptor refused it (e.g. `EIO` from a TUN device that is down, `EPIPE` from a
    /// closed socket): the datagram is lost, the run goes on.
    Refused,
}

/// A datagram waiting in the backlog.
pub struct Pending {
    pub bytes: Vec<u8>,
    /// When it left the emulated path.
    pub time: SimTime,
}

/// The descriptor of one attached host.
pub struct Port {
    /// The host's name in the scenario.
    pub host: String,
    pub fd: RawFd,
    /// Whether `fd` is a socket: writes then use send(2) with `MSG_NOSIGNAL`, so that a closed
    /// peer gives `EPIPE` rather than a `SIGPIPE`.
    is_socket: bool,
    /// The other end is gone: nothing more is read.
    pub closed: bool,
    pub backlog: VecDeque<Pending>,
}

fn errno() -> io::Error {
    io::Error::last_os_error()
}

impl Port {
    /// Checks that `fd` is open and makes it non-blocking if it is not already.
    ///
    /// # Errors
    /// fcntl(2) or fstat(2) fails (typically `EBADF`: the descriptor is not open).
    pub fn open(host: &str, fd: RawFd) -> io::Result<Port> {
        // SAFETY: F_GETFL takes no argument; an invalid descriptor gives -1 and EBADF.
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
        if flags < 0 {
            return Err(errno());
        }
        if flags & libc::O_NONBLOCK == 0 {
            // SAFETY: F_SETFL takes the flags by value.
            if unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
                return Err(errno());
            }
        }
        // SAFETY: an all-zero `stat` is a valid value for fstat to overwrite.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: `st` is a valid, writable stat buffer.
        if unsafe { libc::fstat(fd, &mut st) } < 0 {
            return Err(errno());
        }
        Ok(Port {
            host: host.to_string(),
            fd,
            is_socket: st.st_mode & libc::S_IFMT == libc::S_IFSOCK,
            closed: false,
            backlog: VecDeque::new(),
        })
    }

    /// Reads one datagram into `buf` (which should hold [`MAX_DATAGRAM`] bytes; a longer
    /// datagram is cut to its size).
    ///
    /// # Errors
    /// Any error but `EAGAIN` and `EINTR` (retried).
    pub fn read(&mut self, buf: &mut [u8]) -> io::Result<Read> {
        loop {
            // SAFETY: `buf` is valid for writes of `buf.len()` bytes.
            let n = unsafe { libc::read(self.fd, buf.as_mut_ptr().cast(), buf.len()) };
            if n > 0 {
                return Ok(Read::Datagram(n as usize));
            }
            if n == 0 {
                self.closed = true;
                return Ok(Read::Closed);
            }
            let e = errno();
            match e.raw_os_error() {
                Some(libc::EINTR) => continue,
                Some(libc::EAGAIN) => return Ok(Read::Empty),
                #[allow(unreachable_patterns)] // EWOULDBLOCK == EAGAIN on Linux
                Some(libc::EWOULDBLOCK) => return Ok(Read::Empty),
                _ => return Err(e),
            }
        }
    }

    /// Writes one datagram.
    ///
    /// # Errors
    /// `EBADF`, `EFAULT`, `EINVAL` and other errors that mean the descriptor is unusable.
    pub fn write(&mut self, bytes: &[u8]) -> io::Result<Written> {
        loop {
            let n = if self.is_socket {
                // SAFETY: `bytes` is valid for reads of its length.
                unsafe {
                    libc::send(
                        self.fd,
                        bytes.as_ptr().cast(),
                        bytes.len(),
                        libc::MSG_NOSIGNAL,
                    )
                }
            } else {
                // SAFETY: as above.
                unsafe { libc::write(self.fd, bytes.as_ptr().cast(), bytes.len()) }
            };
            if n >= 0 {
                return Ok(Written::Sent);
            }
            let e = errno();
            match e.raw_os_error() {
                Some(libc::EINTR) => continue,
                Some(libc::EAGAIN) | Some(libc::ENOBUFS) => return Ok(Written::WouldBlock),
                // A TUN device that is down answers EIO; a closed socket peer EPIPE or
                // ECONNRESET; a datagram over the device's MTU EMSGSIZE or EINVAL.
                Some(libc::EIO)
                | Some(libc::EPIPE)
                | Some(libc::ECONNRESET)
                | Some(libc::ECONNREFUSED)
                | Some(libc::EMSGSIZE)
                | Some(libc::ENOTCONN) => return Ok(Written::Refused),
                _ => return Err(e),
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A connected `SOCK_SEQPACKET` pair: one datagram per call, like a TUN device.
    pub(crate) fn seqpacket_pair() -> (RawFd, RawFd) {
        let mut fds = [0; 2];
        // SAFETY: `fds` has room for the two descriptors.
        let rc =
            unsafe { libc::socketpair(libc::AF_UNIX, libc::SOCK_SEQPACKET, 0, fds.as_mut_ptr()) };
        assert_eq!(rc, 0, "socketpair: {}", io::Error::last_os_error());
        (fds[0], fds[1])
    }

    pub(crate) fn close(fd: RawFd) {
        // SAFETY: the test owns `fd`.
        unsafe { libc::close(fd) };
    }

    #[test]
    fn datagrams_cross_one_per_call() {
        let (a, b) = seqpacket_pair();
        let mut pa = Port::open("a", a).unwrap();
        let mut pb = Port::open("b", b).unwrap();
        let mut buf = vec![0u8; MAX_DATAGRAM];
        assert_eq!(pb.read(&mut buf).unwrap(), Read::Empty, "non-blocking");
        assert_eq!(pa.write(b"one").unwrap(), Written::Sent);
        assert_eq!(pa.write(b"two!").unwrap(), Written::Sent);
        assert_eq!(pb.read(&mut buf).unwrap(), Read::Datagram(3));
        assert_eq!(&buf[..3], b"one");
        assert_eq!(pb.read(&mut buf).unwrap(), Read::Datagram(4));
        close(a);
        assert_eq!(pb.read(&mut buf).unwrap(), Read::Closed);
        assert!(pb.closed);
        assert_eq!(
            pb.write(b"x").unwrap(),
            Written::Refused,
            "EPIPE, no SIGPIPE"
        );
        close(b);
    }

    #[test]
    fn a_full_socket_would_block() {
        let (a, b) = seqpacket_pair();
        let mut pa = Port::open("a", a).unwrap();
        let big = vec![0u8; 1500];
        let mut blocked = false;
        for _ in 0..100_000 {
            match pa.write(&big).unwrap() {
                Written::Sent => {}
                Written::WouldBlock => {
                    blocked = true;
                    break;
                }
                Written::Refused => panic!("refused"),
            }
        }
        assert!(blocked);
        close(a);
        close(b);
    }

    #[test]
    fn a_descriptor_that_is_not_open_is_refused() {
        let e = Port::open("x", -1).err().unwrap();
        assert_eq!(e.raw_os_error(), Some(libc::EBADF));
    }
}
