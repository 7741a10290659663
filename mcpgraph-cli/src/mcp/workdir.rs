//! The directory `mcpgraph mcp` was started in, and the only one whose
//! files its tools read or write: every path an agent gives is resolved
//! in it (symbolic links followed), and one that leads outside is refused.

use std::path::{Component, Path, PathBuf};

use super::error::ToolError;

/// The working directory, canonical.
#[derive(Clone, Debug)]
pub(super) struct WorkDir {
    root: PathBuf,
}

impl WorkDir {
    /// The directory `root` (made canonical).
    pub(super) fn new(root: &Path) -> std::io::Result<Self> {
        Ok(Self {
            root: root.canonicalize()?,
        })
    }

    /// The directory itself.
    pub(super) fn root(&self) -> &Path {
        &self.root
    }

    /// The existing file or directory `path` (relative to the working
    /// directory, or absolute inside it), canonical.
    pub(super) fn existing(&self, path: &str) -> Result<PathBuf, ToolError> {
        let joined = self.root.join(path);
        let real = joined.canonicalize().map_err(|source| {
            // A path that does not exist may still point outside: say so
            // rather than "not found".
            if self.lexically_outside(&joined) {
                ToolError::Outside {
                    path: path.to_owned(),
                }
            } else {
                ToolError::Missing {
                    path: path.to_owned(),
                    source,
                }
            }
        })?;
        if real.starts_with(&self.root) {
            Ok(real)
        } else {
            Err(ToolError::Outside {
                path: path.to_owned(),
            })
        }
    }

    /// `path` as messages show it: relative to the working directory.
    pub(super) fn show(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .display()
            .to_string()
    }

    /// Whether `path`, without following links, climbs out of the root.
    fn lexically_outside(&self, path: &Path) -> bool {
        let mut depth: Vec<Component> = Vec::new();
        for component in path.components() {
            match component {
                Component::ParentDir => {
                    depth.pop();
                }
                Component::CurDir => {}
                other => depth.push(other),
            }
        }
        !depth.iter().collect::<PathBuf>().starts_with(&self.root)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("mcpgraph-workdir-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("inside/crate")).unwrap();
        std::fs::write(dir.join("inside/crate/g.yaml"), "x").unwrap();
        std::fs::write(dir.join("secret.yaml"), "x").unwrap();
        dir
    }

    /// Paths inside resolve; `..`, absolute paths and links that lead out
    /// are refused, existing or not.
    #[test]
    fn only_paths_inside_the_working_directory_resolve() {
        let dir = temp("paths");
        let work = WorkDir::new(&dir.join("inside")).unwrap();
        let inside = work.existing("crate/g.yaml").unwrap();
        assert!(inside.ends_with("inside/crate/g.yaml"));
        assert_eq!(work.show(&inside), "crate/g.yaml");
        let absolute = work.root().join("crate/g.yaml");
        assert!(work.existing(&absolute.display().to_string()).is_ok());
        for outside in [
            "../secret.yaml".to_owned(),
            "crate/../../secret.yaml".to_owned(),
            dir.join("secret.yaml").display().to_string(),
            "../nothing.yaml".to_owned(),
            "/etc/passwd".to_owned(),
        ] {
            assert!(
                matches!(work.existing(&outside), Err(ToolError::Outside { .. })),
                "{outside}"
            );
        }
        assert!(matches!(
            work.existing("crate/nothing.yaml"),
            Err(ToolError::Missing { .. })
        ));
        std::os::unix::fs::symlink(dir.join("secret.yaml"), dir.join("inside/link.yaml")).unwrap();
        assert!(matches!(
            work.existing("link.yaml"),
            Err(ToolError::Outside { .. })
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
