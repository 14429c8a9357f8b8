//! The build's identity, `CELLTCP_BUILD_ID`: a digest of every source file of the workspace that
//! the simulator is compiled from (the crates' `.rs` files and manifests, the workspace manifest
//! and `Cargo.lock`). Results stores record it with each run, so that a sweep never reuses a run
//! that other code produced, although the package version (`0.1.0`) stays the same while the
//! models change. The digest is over relative paths and contents only, so the same sources give
//! the same identity in any checkout, in an sdist and in any build profile.

use std::fs;
use std::path::{Path, PathBuf};

/// FNV-1a, 64 bits (its parameters are fixed by its definition, so the identity of the same
/// sources never changes between toolchains, unlike the standard library's hasher).
struct Fnv1a(u64);

impl Fnv1a {
    const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(Self::PRIME);
        }
    }

    /// A length-prefixed field, so that no two sequences of fields share a digest by moving a
    /// byte from one field into the next.
    fn field(&mut self, bytes: &[u8]) {
        self.write(&(bytes.len() as u64).to_le_bytes());
        self.write(bytes);
    }
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() {
            // Build outputs and fuzzing corpora are not sources.
            if name != "target" && name != "corpus" && name != "artifacts" {
                sources(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") || name == "Cargo.toml" {
            out.push(path);
        }
    }
}

fn main() {
    let manifest_dir =
        PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    // crates/py → the workspace root.
    let root = manifest_dir.join("../..");
    let crates = root.join("crates");
    let mut files = Vec::new();
    sources(&crates, &mut files);
    for top in ["Cargo.toml", "Cargo.lock"] {
        files.push(root.join(top));
    }
    let mut named: Vec<(String, PathBuf)> = files
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(&root)
                .unwrap_or(&p)
                .to_string_lossy()
                .replace('\\', "/");
            (rel, p)
        })
        .collect();
    named.sort();
    let mut digest = Fnv1a(Fnv1a::OFFSET_BASIS);
    for (rel, path) in &named {
        let Ok(content) = fs::read(path) else {
            continue;
        };
        digest.field(rel.as_bytes());
        digest.field(&content);
    }
    println!("cargo:rustc-env=CELLTCP_BUILD_ID={:016x}", digest.0);
    // Cargo looks into a directory for a changed file's modification time.
    println!("cargo:rerun-if-changed={}", crates.display());
    println!(
        "cargo:rerun-if-changed={}",
        root.join("Cargo.toml").display()
    );
    println!(
        "cargo:rerun-if-changed={}",
        root.join("Cargo.lock").display()
    );
}
