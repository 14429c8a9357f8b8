//! Byte-exact rendering (and parsing, for tests and trace files) of IPv4/UDP/TCP headers with
//! correct checksums, from the plain-value [`crate::packet::Packet`].
