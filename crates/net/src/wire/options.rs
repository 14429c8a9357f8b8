//! TCP options (RFC 9293 §3.1-3.2, RFC 7323, RFC 2018).
//!
//! Written in the layout that [`TcpOptions::wire_len`] counts, each option padded with leading
//! NOPs so that multi-byte fields fall on natural boundaries (RFC 7323 Appendix A):
//!
//! | option          | kind | len    | bytes on the wire          |
//! |-----------------|------|--------|----------------------------|
//! | MSS             | 2    | 4      | `02 04 mss(2)`             |
//! | SACK-permitted  | 4    | 2      | `01 01 04 02`              |
//! | window scale    | 3    | 3      | `01 03 03 shift`           |
//! | timestamps      | 8    | 10     | `01 01 08 0a tsval tsecr`  |
//! | SACK, n blocks  | 5    | 2 + 8n | `01 01 05 len (left right)*n` |
//!
//! Parsing accepts any order and any NOP/EOL placement that other stacks use.

use super::{be16, be32, WireError};
use crate::packet::{SackBlock, TcpOptions, MAX_SACK_BLOCKS};

/// Most option bytes a TCP header can hold: data offset 15 words less the 20 fixed bytes.
pub const MAX_OPTIONS_LEN: usize = 40;

/// End of option list (RFC 9293 §3.2).
pub const KIND_EOL: u8 = 0;
/// No-operation, used as padding (RFC 9293 §3.2).
pub const KIND_NOP: u8 = 1;
/// Maximum segment size (RFC 9293 §3.7.1).
pub const KIND_MSS: u8 = 2;
/// Window scale (RFC 7323 §2.2).
pub const KIND_WINDOW_SCALE: u8 = 3;
/// SACK-permitted (RFC 2018 §2).
pub const KIND_SACK_PERMITTED: u8 = 4;
/// SACK (RFC 2018 §3).
pub const KIND_SACK: u8 = 5;
/// Timestamps (RFC 7323 §3.2).
pub const KIND_TIMESTAMPS: u8 = 8;

/// Checks that `o` can be written: at most four SACK blocks and at most 40 option bytes.
pub(super) fn check(o: &TcpOptions) -> Result<(), WireError> {
    if usize::from(o.sack_len) > MAX_SACK_BLOCKS {
        return Err(WireError::TooManySackBlocks {
            sack_len: o.sack_len,
        });
    }
    let len = o.wire_len();
    if len as usize > MAX_OPTIONS_LEN {
        return Err(WireError::OptionsTooLong { len });
    }
    Ok(())
}

/// Writes the options into `out`, which is exactly `o.wire_len()` bytes long. Call [`check`]
/// first.
pub(super) fn write(o: &TcpOptions, out: &mut [u8]) {
    let mut w = Cursor { out, at: 0 };
    if let Some(mss) = o.mss {
        w.put(&[KIND_MSS, 4]);
        w.put(&mss.to_be_bytes());
    }
    if o.sack_permitted {
        w.put(&[KIND_NOP, KIND_NOP, KIND_SACK_PERMITTED, 2]);
    }
    if let Some(shift) = o.window_scale {
        w.put(&[KIND_NOP, KIND_WINDOW_SCALE, 3, shift]);
    }
    if let Some((tsval, tsecr)) = o.timestamps {
        w.put(&[KIND_NOP, KIND_NOP, KIND_TIMESTAMPS, 10]);
        w.put(&tsval.to_be_bytes());
        w.put(&tsecr.to_be_bytes());
    }
    let sack = o.sack();
    if !sack.is_empty() {
        w.put(&[KIND_NOP, KIND_NOP, KIND_SACK, 2 + 8 * sack.len() as u8]);
        for b in sack {
            w.put(&b.left.to_be_bytes());
            w.put(&b.right.to_be_bytes());
        }
    }
    debug_assert_eq!(
        w.at,
        w.out.len(),
        "TcpOptions::wire_len disagrees with the layout"
    );
}

struct Cursor<'a> {
    out: &'a mut [u8],
    at: usize,
}

impl Cursor<'_> {
    fn put(&mut self, bytes: &[u8]) {
        self.out[self.at..self.at + bytes.len()].copy_from_slice(bytes);
        self.at += bytes.len();
    }
}

/// Parses the option bytes `opts`, which begin at datagram offset `base`.
///
/// Unknown options with a well-formed length are skipped, as RFC 9293 §3.1 (MUST-6) requires of
/// receivers; an illegal length is an error (MUST-7 asks receivers to be prepared for it). Bytes
/// after an End-of-Option-List are padding and are not inspected. A second copy of a modelled
/// option is an error, since a [`TcpOptions`] can hold only one.
pub(super) fn parse(opts: &[u8], base: usize) -> Result<TcpOptions, WireError> {
    let mut o = TcpOptions::default();
    let mut seen: u16 = 0;
    let mut i = 0;
    while i < opts.len() {
        let kind = opts[i];
        let offset = base + i;
        match kind {
            KIND_EOL => break,
            KIND_NOP => {
                i += 1;
                continue;
            }
            _ => {}
        }
        let bad = |reason| WireError::BadOption {
            offset,
            kind,
            reason,
        };
        let Some(&len) = opts.get(i + 1) else {
            return Err(bad("the length byte is missing at the end of the header"));
        };
        let len = usize::from(len);
        if len < 2 {
            return Err(bad("length below 2"));
        }
        if i + len > opts.len() {
            return Err(bad("the option runs past the end of the TCP header"));
        }
        let body = &opts[i + 2..i + len];
        let modelled = matches!(
            kind,
            KIND_MSS | KIND_WINDOW_SCALE | KIND_SACK_PERMITTED | KIND_SACK | KIND_TIMESTAMPS
        );
        if modelled {
            if seen & (1 << kind) != 0 {
                return Err(WireError::DuplicateOption { offset, kind });
            }
            seen |= 1 << kind;
        }
        match kind {
            KIND_MSS => {
                if len != 4 {
                    return Err(bad("MSS length must be 4 (RFC 9293 §3.2)"));
                }
                o.mss = Some(be16(body, 0));
            }
            KIND_WINDOW_SCALE => {
                if len != 3 {
                    return Err(bad("window scale length must be 3 (RFC 7323 §2.2)"));
                }
                o.window_scale = Some(body[0]);
            }
            KIND_SACK_PERMITTED => {
                if len != 2 {
                    return Err(bad("SACK-permitted length must be 2 (RFC 2018 §2)"));
                }
                o.sack_permitted = true;
            }
            KIND_TIMESTAMPS => {
                if len != 10 {
                    return Err(bad("timestamps length must be 10 (RFC 7323 §3.2)"));
                }
                o.timestamps = Some((be32(body, 0), be32(body, 4)));
            }
            KIND_SACK => {
                let n = (len - 2) / 8;
                if (len - 2) % 8 != 0 || n == 0 || n > MAX_SACK_BLOCKS {
                    return Err(bad(
                        "SACK length must be 2 + 8n with n of 1 to 4 (RFC 2018 §3)",
                    ));
                }
                for k in 0..n {
                    let block = SackBlock {
                        left: be32(body, 8 * k),
                        right: be32(body, 8 * k + 4),
                    };
                    o.push_sack(block);
                }
            }
            _ => {}
        }
        i += len;
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_linux_syn_layout() {
        // MSS 1460, SACK-permitted, timestamps, NOP, window scale 7: the order Linux uses,
        // which differs from ours.
        let opts = [
            2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7,
        ];
        let o = parse(&opts, 40).unwrap();
        assert_eq!(o.mss, Some(1460));
        assert!(o.sack_permitted);
        assert_eq!(o.timestamps, Some((1, 0)));
        assert_eq!(o.window_scale, Some(7));
    }

    #[test]
    fn skips_unknown_options_and_stops_at_eol() {
        // Kind 30 (multipath TCP) with 4 bytes, then EOL and garbage padding.
        let opts = [30, 4, 0xaa, 0xbb, 2, 4, 0x02, 0x18, 0, 9, 9, 9];
        let o = parse(&opts, 40).unwrap();
        assert_eq!(o.mss, Some(536));
    }

    #[test]
    fn rejects_bad_encodings_with_their_offsets() {
        let cases: [(&[u8], usize, u8); 7] = [
            (&[2, 4, 5], 40, 2),          // runs past the end
            (&[1, 1, 1, 2], 43, 2),       // length byte missing
            (&[8, 0, 0, 0], 40, 8),       // zero length
            (&[2, 3, 5, 1], 40, 2),       // MSS of length 3
            (&[1, 5, 2, 1, 2, 3], 41, 5), // empty SACK
            (&[4, 2, 4, 2], 42, 4),       // duplicate SACK-permitted
            (&[3, 4, 7, 0], 40, 3),       // window scale of length 4
        ];
        for (opts, offset, kind) in cases {
            match parse(opts, 40) {
                Err(WireError::BadOption {
                    offset: o, kind: k, ..
                })
                | Err(WireError::DuplicateOption { offset: o, kind: k }) => {
                    assert_eq!((o, k), (offset, kind), "{opts:?}")
                }
                other => panic!("{opts:?} gave {other:?}"),
            }
        }
    }

    #[test]
    fn check_refuses_what_does_not_fit() {
        let mut o = TcpOptions {
            timestamps: Some((1, 2)),
            ..Default::default()
        };
        for k in 0..3 {
            assert!(o.push_sack(SackBlock {
                left: k,
                right: k + 1
            }));
        }
        assert_eq!(
            check(&o),
            Ok(()),
            "timestamps and three blocks fill exactly 40 bytes"
        );
        o.push_sack(SackBlock { left: 9, right: 10 });
        assert_eq!(check(&o), Err(WireError::OptionsTooLong { len: 48 }));
        let o = TcpOptions {
            sack_len: 5,
            ..Default::default()
        };
        assert_eq!(check(&o), Err(WireError::TooManySackBlocks { sack_len: 5 }));
    }
}
