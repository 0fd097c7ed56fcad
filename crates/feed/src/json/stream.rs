//! The document read in one pass with its `items` turned into entries one at a time.
//!
//! A JSON Feed's cost is in its items: read as one [`Value`] tree, 600,000 tiny items cost
//! 80 times their bytes. Here the top-level object's fields other than `items` are read as
//! values (they are small), and an `items` array is read element by element: each item is a
//! small tree of its own, adapted to an [`Entry`] and dropped before the next is read. An
//! item past the caller's bound stops the read there ([`Items::over_limit`]), so a document
//! over the bound costs no more than one at it. A top-level value that is no object is
//! skipped, not kept: only its type is reported.

use super::{Adapter, Path};
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;
use tidings_model::{Entry, Warning};
use url::Url;

/// The entries an `items` array became, with the warnings adapting them raised.
pub(super) struct Items<'a> {
    base: Option<&'a Url>,
    pub(super) max_entries: Option<usize>,
    pub(super) entries: Vec<Entry>,
    pub(super) warnings: Vec<Warning>,
    /// An `items` array was read here (its entries are in `entries`).
    pub(super) streamed: bool,
    /// The read stopped at an item past `max_entries`.
    pub(super) over_limit: bool,
}

impl<'a> Items<'a> {
    pub(super) fn new(base: Option<&'a Url>, max_entries: Option<usize>) -> Items<'a> {
        Items {
            base,
            max_entries,
            entries: Vec::new(),
            warnings: Vec::new(),
            streamed: false,
            over_limit: false,
        }
    }

    /// Forget an earlier attempt (the document is read again after a repair).
    fn reset(&mut self) {
        self.entries.clear();
        self.warnings.clear();
        self.streamed = false;
        self.over_limit = false;
    }
}

/// The top-level value of the document.
pub(super) enum Top {
    /// An object's fields; `items`, when it was an array, is an empty placeholder array (its
    /// entries are in [`Items::entries`]).
    Object(Map<String, Value>),
    /// Anything else, by the name of its type (`"an array"`).
    Other(&'static str),
}

/// Read the first JSON value of `de` into `items` and the returned [`Top`].
pub(super) fn read_top<'de, D>(de: D, items: &mut Items<'_>) -> Result<Top, D::Error>
where
    D: de::Deserializer<'de>,
{
    items.reset();
    de.deserialize_any(TopVisitor { items })
}

struct TopVisitor<'s, 'a> {
    items: &'s mut Items<'a>,
}

impl<'de> Visitor<'de> for TopVisitor<'_, '_> {
    type Value = Top;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Top, A::Error> {
        let mut fields = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if key == "items" {
                // A later `items` replaces an earlier one, as in a parsed object.
                self.items.reset();
                let value = map.next_value_seed(ItemsSeed { items: self.items })?;
                fields.insert(key, value.unwrap_or(Value::Array(Vec::new())));
            } else {
                let value = map.next_value::<Value>()?;
                fields.insert(key, value);
            }
        }
        Ok(Top::Object(fields))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Top, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Top::Other("an array"))
    }

    fn visit_str<E>(self, _: &str) -> Result<Top, E> {
        Ok(Top::Other("a string"))
    }

    fn visit_bool<E>(self, _: bool) -> Result<Top, E> {
        Ok(Top::Other("a boolean"))
    }

    fn visit_i64<E>(self, _: i64) -> Result<Top, E> {
        Ok(Top::Other("a number"))
    }

    fn visit_u64<E>(self, _: u64) -> Result<Top, E> {
        Ok(Top::Other("a number"))
    }

    fn visit_f64<E>(self, _: f64) -> Result<Top, E> {
        Ok(Top::Other("a number"))
    }

    fn visit_unit<E>(self) -> Result<Top, E> {
        Ok(Top::Other("null"))
    }
}

/// The value of `items`: an array is streamed into entries (`None`); anything else is kept
/// as a value for the adapter's usual coercions (`Some`).
struct ItemsSeed<'s, 'a> {
    items: &'s mut Items<'a>,
}

impl<'de> DeserializeSeed<'de> for ItemsSeed<'_, '_> {
    type Value = Option<Value>;

    fn deserialize<D: de::Deserializer<'de>>(self, de: D) -> Result<Option<Value>, D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ItemsSeed<'_, '_> {
    type Value = Option<Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the items of a JSON Feed")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<Value>, A::Error> {
        let items = self.items;
        items.streamed = true;
        let items_path = Path::Field(&Path::Root, "items");
        let mut index = 0;
        while let Some(item) = seq.next_element::<Value>()? {
            let mut cx = Adapter {
                base: items.base,
                warnings: &mut items.warnings,
            };
            match item {
                Value::Object(item) => {
                    if items
                        .max_entries
                        .is_some_and(|max| items.entries.len() >= max)
                    {
                        items.over_limit = true;
                        return Err(de::Error::custom("more entries than the bound"));
                    }
                    let entry = cx.item(item, index);
                    items.entries.push(entry);
                }
                other => cx.wrong_type(Path::Index(&items_path, index), "an object", &other),
            }
            index += 1;
        }
        Ok(None)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Option<Value>, A::Error> {
        let object = Map::deserialize(de::value::MapAccessDeserializer::new(map))?;
        Ok(Some(Value::Object(object)))
    }

    fn visit_str<E>(self, value: &str) -> Result<Option<Value>, E> {
        Ok(Some(Value::String(value.to_owned())))
    }

    fn visit_string<E>(self, value: String) -> Result<Option<Value>, E> {
        Ok(Some(Value::String(value)))
    }

    fn visit_bool<E>(self, value: bool) -> Result<Option<Value>, E> {
        Ok(Some(Value::Bool(value)))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Option<Value>, E> {
        Ok(Some(Value::from(value)))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Option<Value>, E> {
        Ok(Some(Value::from(value)))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Option<Value>, E> {
        Ok(Some(Value::from(value)))
    }

    fn visit_unit<E>(self) -> Result<Option<Value>, E> {
        Ok(Some(Value::Null))
    }
}
