//! HTML named character references, which feeds use inside XML (stub: to be written).

/// The replacement text of an HTML named entity (without `&` and `;`), if it is one.
pub fn lookup(_name: &str) -> Option<&'static str> {
    None
}
