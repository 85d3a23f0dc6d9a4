//! Gathering a batch run's files: a file named on the command line is always taken; a
//! folder is walked recursively (symbolic links inside it are not followed, but listed as
//! skipped), keeping the files that pass `--ext` and `--glob`. A walked file whose first
//! bytes are no mesh format is skipped and listed as such; a named one is an error.

use std::io::Read;
use std::path::{Path, PathBuf};

/// One file to work on.
#[derive(Clone, Debug)]
pub struct Input {
    /// Where it is.
    pub path: PathBuf,
    /// Its path below the folder it was found in (its file name when named directly):
    /// where its output goes below `--out-dir`.
    pub rel: PathBuf,
    /// Named on the command line rather than found in a folder.
    pub named: bool,
}

/// What a batch run is given: files to work on, and what the walk passed over.
#[derive(Debug)]
pub enum Entry {
    /// A file to work on.
    File(Input),
    /// Passed over, with the reason (a symbolic link, a device …).
    Skip(PathBuf, String),
    /// A folder that could not be read.
    Fail(PathBuf, String),
}

/// `--ext` and `--glob`: which files found in folders are taken.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// Extensions (lower case, no dot); empty: any.
    pub ext: Vec<String>,
    /// A pattern matched against the file name, or, when it holds a `/`, against the
    /// path below the folder: `*` any characters but `/`, `**` any characters, `?` one.
    pub glob: Option<String>,
}

impl Selection {
    fn wants(&self, rel: &Path) -> bool {
        let ext_ok = self.ext.is_empty()
            || rel
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| self.ext.iter().any(|x| x.eq_ignore_ascii_case(e)));
        let glob_ok = self.glob.as_deref().is_none_or(|g| {
            let rel = rel.to_string_lossy().replace('\\', "/");
            if g.contains('/') {
                glob_match(g.as_bytes(), rel.as_bytes())
            } else {
                let name = rel.rsplit('/').next().unwrap_or("");
                glob_match(g.as_bytes(), name.as_bytes())
            }
        });
        ext_ok && glob_ok
    }
}

/// Whether `text` matches `pattern` (`*` any run without `/`, `**` any run, `?` one
/// character but `/`), in O(len(pattern) × len(text)).
pub fn glob_match(pattern: &[u8], text: &[u8]) -> bool {
    // Tokens: a literal byte, `?`, `*` or `**`.
    #[derive(Clone, Copy, PartialEq)]
    enum T {
        Byte(u8),
        One,
        Star,
        Stars,
    }
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < pattern.len() {
        match pattern[i] {
            b'*' if pattern.get(i + 1) == Some(&b'*') => {
                tokens.push(T::Stars);
                i += 1;
            }
            b'*' => tokens.push(T::Star),
            b'?' => tokens.push(T::One),
            b => tokens.push(T::Byte(b)),
        }
        i += 1;
    }
    // can[j]: the first `p` tokens match the first `j` bytes.
    let mut can = vec![false; text.len() + 1];
    can[0] = true;
    for t in tokens {
        let mut next = vec![false; text.len() + 1];
        for j in 0..=text.len() {
            next[j] = match t {
                T::Byte(b) => j > 0 && can[j - 1] && text[j - 1] == b,
                T::One => j > 0 && can[j - 1] && text[j - 1] != b'/',
                T::Star => can[j] || (j > 0 && next[j - 1] && text[j - 1] != b'/'),
                T::Stars => can[j] || (j > 0 && next[j - 1]),
            };
        }
        can = next;
    }
    can[text.len()]
}

/// The files to work on: named files as they are, folders walked recursively in name
/// order. `batch` in the result says whether a folder was named (a batch even if it
/// holds one file).
pub fn gather(args: &[PathBuf], selection: &Selection) -> (Vec<Entry>, bool) {
    let mut entries = Vec::new();
    let mut folder = false;
    for arg in args {
        if arg.is_dir() {
            folder = true;
            walk(arg, Path::new(""), selection, &mut entries);
        } else {
            let rel = arg.file_name().map(PathBuf::from).unwrap_or_default();
            entries.push(Entry::File(Input {
                path: arg.clone(),
                rel,
                named: true,
            }));
        }
    }
    (entries, folder)
}

fn walk(root: &Path, rel: &Path, selection: &Selection, out: &mut Vec<Entry>) {
    let dir = root.join(rel);
    let listing = match std::fs::read_dir(&dir) {
        Ok(l) => l,
        Err(e) => {
            out.push(Entry::Fail(dir, format!("cannot read the folder: {e}")));
            return;
        }
    };
    let mut items: Vec<_> = listing.filter_map(std::result::Result::ok).collect();
    items.sort_by_key(std::fs::DirEntry::file_name);
    for item in items {
        let here = rel.join(item.file_name());
        let path = item.path();
        match item.file_type() {
            Ok(t) if t.is_dir() => walk(root, &here, selection, out),
            Ok(t) if t.is_file() => {
                if selection.wants(&here) {
                    out.push(Entry::File(Input {
                        path,
                        rel: here,
                        named: false,
                    }));
                }
            }
            Ok(t) if t.is_symlink() => {
                out.push(Entry::Skip(path, "a symbolic link, not followed".into()));
            }
            Ok(_) => out.push(Entry::Skip(path, "not a regular file".into())),
            Err(e) => out.push(Entry::Fail(path, format!("cannot read: {e}"))),
        }
    }
}

/// Whether a file found in a folder starts like a mesh file of some format (its first
/// 64 bytes), so that a folder's other files are passed over rather than failed.
pub fn looks_like_a_mesh(path: &Path) -> std::io::Result<bool> {
    let mut head = Vec::with_capacity(64);
    std::fs::File::open(path)?.take(64).read_to_end(&mut head)?;
    Ok(meshcodec::detect(&head).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        let m = |p: &str, t: &str| glob_match(p.as_bytes(), t.as_bytes());
        assert!(m("*.mesh", "a.mesh"));
        assert!(!m("*.mesh", "a.mesh.bak"));
        assert!(!m("*.mesh", "d/a.mesh"));
        assert!(m("**.mesh", "d/e/a.mesh"));
        assert!(m("d/**/a?.bin", "d/x/y/ab.bin"));
        assert!(!m("d/*/a?.bin", "d/x/y/ab.bin"));
        assert!(m("", ""));
        assert!(!m("?", ""));
        assert!(m("*", ""));
        // No exponential backtracking on a hostile pattern.
        let long = "a".repeat(5000);
        assert!(!m(&"*a".repeat(40).replace("a", "b"), &long));
    }

    #[test]
    fn selection_by_extension_and_pattern() {
        let s = Selection {
            ext: vec!["mesh".into(), "bin".into()],
            glob: None,
        };
        assert!(s.wants(Path::new("x/a.MESH")));
        assert!(!s.wants(Path::new("x/a.txt")));
        let s = Selection {
            ext: vec![],
            glob: Some("v5*".into()),
        };
        assert!(s.wants(Path::new("x/v5.00.mesh")));
        assert!(!s.wants(Path::new("v5/a.mesh")));
    }
}
