//! Where a node may pass control: its routes and its `onError`.

use super::{NodeKind, Resilience, Sp};

impl NodeKind {
    /// The ids a node may pass control to, with where each is written: a
    /// switch's conditions in order, then its default; a node's `onError`
    /// last.
    pub fn targets(&self) -> Vec<&Sp<String>> {
        let mut targets = self.routes();
        targets.extend(self.resilience().and_then(|r| r.on_error.as_ref()));
        targets
    }

    /// The node's `retry`, `timeoutMs` and `onError`, for the types that
    /// have them.
    pub fn resilience(&self) -> Option<&Resilience> {
        match self {
            NodeKind::Mcp { resilience, .. }
            | NodeKind::Parallel { resilience, .. }
            | NodeKind::ForEach { resilience, .. } => Some(resilience),
            _ => None,
        }
    }

    /// [`NodeKind::targets`] but `onError`.
    fn routes(&self) -> Vec<&Sp<String>> {
        match self {
            NodeKind::Entry { next }
            | NodeKind::Mcp { next, .. }
            | NodeKind::Parallel { next, .. }
            | NodeKind::ForEach { next, .. }
            | NodeKind::Transform { next, .. } => vec![next],
            NodeKind::Switch { conditions, next } => conditions
                .iter()
                .map(|c| &c.next)
                .chain(std::iter::once(next))
                .collect(),
            NodeKind::Elicit { routes, .. } => routes.iter().map(|(_, to)| to).collect(),
            NodeKind::Exit => Vec::new(),
        }
    }
}

impl NodeKind {
    /// [`NodeKind::targets`], each with the key that names it (`next`, an
    /// `elicit` node's `routes.accept`, ...), for messages.
    pub fn keyed_targets(&self) -> Vec<(String, &Sp<String>)> {
        match self {
            NodeKind::Elicit { routes, .. } => routes
                .iter()
                .map(|(answer, to)| (format!("routes.{answer}"), to))
                .collect(),
            kind => kind
                .routes()
                .into_iter()
                .map(|to| ("next".to_owned(), to))
                .chain(
                    kind.resilience()
                        .and_then(|r| r.on_error.as_ref())
                        .map(|to| ("onError".to_owned(), to)),
                )
                .collect(),
        }
    }
}
