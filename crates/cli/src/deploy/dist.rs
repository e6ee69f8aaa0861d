//! The built site on disk: every file under the dist directory, by site path.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use d9lens_core::site::SitePath;

/// The files of a built site, by path.
pub type Files = BTreeMap<SitePath, Vec<u8>>;

/// `DIR/index.html`, which must exist for `DIR` to be a built page.
pub fn index_path(dir: &Path) -> Result<PathBuf, String> {
    let index = dir.join("index.html");
    if index.is_file() {
        Ok(index)
    } else {
        Err(format!(
            "{} does not exist: build the page first (trunk build --release) or name the built site with --dist DIR",
            index.display()
        ))
    }
}

/// Reads every file under `dir` (following links to files; a linked directory is
/// refused, since it could loop).
pub fn read(dir: &Path) -> Result<Files, String> {
    index_path(dir)?;
    let mut files = Files::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        let entries = fs::read_dir(&current).map_err(|e| format!("{}: {e}", current.display()))?;
        for entry in entries {
            let entry = entry.map_err(|e| format!("{}: {e}", current.display()))?;
            let path = entry.path();
            let kind = entry.file_type().map_err(|e| format!("{}: {e}", path.display()))?;
            if kind.is_dir() {
                pending.push(path);
                continue;
            }
            if kind.is_symlink() && path.is_dir() {
                return Err(format!("{}: a link to a directory; copy it instead", path.display()));
            }
            let bytes = fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            files.insert(site_path(dir, &path)?, bytes);
        }
    }
    Ok(files)
}

/// `path`'s site path: its components under `dir`, joined with `/`.
fn site_path(dir: &Path, path: &Path) -> Result<SitePath, String> {
    let relative = path
        .strip_prefix(dir)
        .map_err(|_| format!("{} is not under {}", path.display(), dir.display()))?;
    let parts: Option<Vec<&str>> = relative.components().map(|c| c.as_os_str().to_str()).collect();
    let parts = parts.ok_or_else(|| format!("{}: the name is not UTF-8", path.display()))?;
    SitePath::new(&parts.join("/")).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_tree_by_site_path() {
        let dir = std::env::temp_dir().join(format!("d9lens-dist-test-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("a/b")).unwrap();
        assert!(read(&dir).unwrap_err().contains("index.html does not exist"));
        fs::write(dir.join("index.html"), "<html>").unwrap();
        fs::write(dir.join("a/b/c.js"), "x").unwrap();
        let files = read(&dir).unwrap();
        let paths: Vec<&str> = files.keys().map(SitePath::as_str).collect();
        assert_eq!(paths, ["a/b/c.js", "index.html"]);
        assert_eq!(files[&SitePath::new("a/b/c.js").unwrap()], b"x");
        fs::remove_dir_all(&dir).unwrap();
    }
}
