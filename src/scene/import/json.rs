//! The import's error, and checked access to the glTF document's JSON: what every
//! stage of the import needs, so it depends on nothing of the import.

use serde_json::Value;

use crate::error::{Error, ErrorKind, Result};

/// An import error: the input is not what its format says (glTF, GLB or OBJ).
pub(crate) fn bad(what: impl Into<String>) -> Error {
    Error::new("import", ErrorKind::Invalid(what.into()))
}

/// A non-negative integer property of a JSON object.
pub(super) fn uint(v: &Value, key: &str, ctx: &str) -> Result<Option<usize>> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(x) => x
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .map(Some)
            .ok_or_else(|| bad(format!("{ctx}: {key} is not a non-negative integer"))),
    }
}

/// The `i`-th entry of a top-level array.
pub(super) fn entry<'a>(doc: &'a Value, array: &str, i: usize, ctx: &str) -> Result<&'a Value> {
    doc.get(array)
        .and_then(|a| a.get(i))
        .ok_or_else(|| bad(format!("{ctx}: no {array}[{i}]")))
}
