//! A serde deserializer over a parsed TOML tree that knows the dotted key of every value.
//!
//! The raw section structs (`config::*File`) derive `Deserialize` with `deny_unknown_fields`;
//! running them over this deserializer, rather than `toml`'s own, gives every error the exact
//! key it concerns (`links.access.a_to_b.rate`, `nodes.foo.colour`) and a message in the
//! format's own words ("expected a boolean, found 'yes'") instead of Rust type names.
//!
//! Tagged tables. The format writes a choice among variants as a table with a tag key
//! (`queue = { kind = "red", min_th = "5p", … }`). Serde's internally tagged enums would buffer
//! the table and lose the keys of nested errors, so the raw enums are *externally* tagged for
//! serde and this deserializer maps a table onto them in `deserialize_enum`: the tag's value is
//! the variant and the rest of the table its content, deserialized with keys intact. The tag is
//! `kind`, except for the enums listed in [`TABLE_ENUMS`] with another tag. A string value is a
//! unit variant (`kind = "host"`, `arrival = "cbr"`). Any other enum also reads serde's own
//! form of a variant with content, a table of one entry named by the variant
//! (`{packets = 500}`): the form a file layer gives a domain type (`unit_keys`).

use std::fmt;

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, EnumAccess, MapAccess, SeqAccess, Unexpected,
    VariantAccess, Visitor,
};
use toml::{Table, Value};

use crate::error::{join_key, ScenarioError};

/// Enums written as tagged tables: (serde name of the enum, tag key, whether values other than
/// strings and tables go to the enum's own visitor, which then explains what it expects).
/// Enums not listed here are written as plain strings.
pub(crate) const TABLE_ENUMS: &[(&str, &str, bool)] = &[
    ("QueueFile", "kind", false),
    ("LossFile", "kind", false),
    ("FlowFile", "kind", false),
    ("AppFile", "kind", false),
    ("FileSizeFile", "dist", true),
    ("LayoutFile", "kind", false),
    ("MobilityFile", "kind", false),
    ("MiddleboxFile", "kind", false),
    ("UplinkScheduling", "kind", false),
];

/// Deserializes `T` from the document's root table.
pub(crate) fn from_table<T: DeserializeOwned>(table: &Table) -> Result<T, ScenarioError> {
    T::deserialize(TableDe {
        table,
        path: String::new(),
        tag: None,
    })
    .map_err(DeError::into_scenario)
}

/// Deserializes `T` from `table`, the table at dotted key `path`.
pub(crate) fn from_table_at<T: DeserializeOwned>(
    table: &Table,
    path: &str,
) -> Result<T, ScenarioError> {
    T::deserialize(TableDe {
        table,
        path: path.to_owned(),
        tag: None,
    })
    .map_err(DeError::into_scenario)
}

/// [`from_table_at`] for a type that reads some of the keys of `table` while the caller reads
/// the others, `beside`: an unknown key lists those among the expected ones.
pub(crate) fn from_table_at_beside<T: DeserializeOwned>(
    table: &Table,
    path: &str,
    beside: &[&'static str],
) -> Result<T, ScenarioError> {
    T::deserialize(TableDe {
        table,
        path: path.to_owned(),
        tag: None,
    })
    .map_err(|e| e.beside(path, beside).into_scenario())
}

/// Deserializes `T` from `value`, the value at dotted key `path`.
pub(crate) fn from_value_at<T: DeserializeOwned>(
    value: &Value,
    path: &str,
) -> Result<T, ScenarioError> {
    T::deserialize(ValueDe {
        value,
        path: path.to_owned(),
    })
    .map_err(DeError::into_scenario)
}

/// An error while deserializing, with the key it concerns once known.
#[derive(Debug)]
pub(crate) struct DeError {
    /// Full dotted key, set by the innermost deserializer that knows it.
    key: Option<String>,
    /// A child key named by serde (`missing_field`, `unknown_field`), appended to the path of
    /// the table that raised the error.
    field: Option<String>,
    kind: ErrorKind,
}

#[derive(Debug)]
enum ErrorKind {
    Message(String),
    UnknownKey(Vec<&'static str>),
    MissingKey,
}

impl DeError {
    fn message(msg: impl Into<String>) -> Self {
        DeError {
            key: None,
            field: None,
            kind: ErrorKind::Message(msg.into()),
        }
    }

    /// Attaches `path` (the key of the value being deserialized) unless a deeper key is known.
    fn at(mut self, path: &str) -> Self {
        if self.key.is_none() {
            self.key = Some(match self.field.take() {
                Some(field) => join_key(path, &field),
                None => path.to_owned(),
            });
        }
        self
    }

    /// In a tagged table the tag key is valid too: list it among the expected keys.
    fn with_tag(mut self, tag: Option<&'static str>) -> Self {
        if let (ErrorKind::UnknownKey(expected), Some(tag)) = (&mut self.kind, tag) {
            expected.insert(0, tag);
        }
        self
    }

    /// Keys of table `path` read by another type: an unknown key of that table (not of a table
    /// inside it) lists them first among the expected keys.
    fn beside(mut self, path: &str, keys: &[&'static str]) -> Self {
        let in_table = match (&self.key, &self.field) {
            (Some(key), _) => key.rsplit_once('.').map_or("", |(parent, _)| parent) == path,
            (None, Some(_)) => true,
            (None, None) => false,
        };
        if let (ErrorKind::UnknownKey(expected), true) = (&mut self.kind, in_table) {
            expected.splice(0..0, keys.iter().copied());
        }
        self
    }

    fn render(&self) -> String {
        match &self.kind {
            ErrorKind::Message(m) => m.clone(),
            ErrorKind::UnknownKey(expected) if expected.is_empty() => {
                "unknown key; this table takes no keys".to_owned()
            }
            ErrorKind::UnknownKey(expected) => {
                format!("unknown key; expected one of: {}", expected.join(", "))
            }
            ErrorKind::MissingKey => "required key is missing".to_owned(),
        }
    }

    pub(crate) fn into_scenario(self) -> ScenarioError {
        let message = self.render();
        let key = match (self.key, self.field) {
            (Some(key), _) => key,
            (None, Some(field)) => field,
            (None, None) => String::new(),
        };
        ScenarioError::new(key, message)
    }
}

impl fmt::Display for DeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.key {
            Some(key) => write!(f, "{key}: {}", self.render()),
            None => f.write_str(&self.render()),
        }
    }
}

impl std::error::Error for DeError {}

impl de::Error for DeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        DeError::message(msg.to_string())
    }

    fn invalid_type(unexp: Unexpected<'_>, exp: &dyn de::Expected) -> Self {
        DeError::message(format!(
            "expected {}, found {}",
            expected_text(exp),
            unexpected_text(unexp)
        ))
    }

    fn invalid_value(unexp: Unexpected<'_>, exp: &dyn de::Expected) -> Self {
        Self::invalid_type(unexp, exp)
    }

    fn invalid_length(len: usize, exp: &dyn de::Expected) -> Self {
        DeError::message(format!(
            "expected {}, found an array of {len}",
            expected_text(exp)
        ))
    }

    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        DeError::message(format!(
            "'{variant}' is not one of: {}",
            expected.join(", ")
        ))
    }

    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        DeError {
            key: None,
            field: Some(field.to_owned()),
            kind: ErrorKind::UnknownKey(expected.to_vec()),
        }
    }

    fn missing_field(field: &'static str) -> Self {
        DeError {
            key: None,
            field: Some(field.to_owned()),
            kind: ErrorKind::MissingKey,
        }
    }

    fn duplicate_field(field: &'static str) -> Self {
        DeError {
            key: None,
            field: Some(field.to_owned()),
            kind: ErrorKind::Message("key is given twice".into()),
        }
    }
}

/// The expectation of a serde visitor, in the format's words rather than Rust's.
fn expected_text(exp: &dyn de::Expected) -> String {
    let text = exp.to_string();
    match text.as_str() {
        "u64" => "an integer ≥ 0".to_owned(),
        "u32" => "an integer from 0 to 4294967295".to_owned(),
        "u16" => "an integer from 0 to 65535".to_owned(),
        "u8" => "an integer from 0 to 255".to_owned(),
        "i64" => "an integer".to_owned(),
        "f64" | "f32" => "a number".to_owned(),
        "a sequence" => "an array".to_owned(),
        "a map" => "a table".to_owned(),
        t if t.starts_with("struct ") => "a table".to_owned(),
        t if t.starts_with("enum ") => "a string".to_owned(),
        _ => text,
    }
}

fn unexpected_text(unexp: Unexpected<'_>) -> String {
    match unexp {
        Unexpected::Bool(b) => b.to_string(),
        Unexpected::Unsigned(u) => u.to_string(),
        Unexpected::Signed(i) => i.to_string(),
        Unexpected::Float(f) => f.to_string(),
        Unexpected::Char(c) => format!("'{c}'"),
        Unexpected::Str(s) => format!("'{s}'"),
        Unexpected::Map => "a table".to_owned(),
        Unexpected::Seq => "an array".to_owned(),
        Unexpected::Unit => "nothing".to_owned(),
        Unexpected::Other(o) => o.to_owned(),
        other => other.to_string(),
    }
}

/// A TOML value as quoted in messages.
pub(crate) fn describe(value: &Value) -> String {
    match value {
        Value::String(s) => format!("'{s}'"),
        Value::Integer(i) => i.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Boolean(b) => b.to_string(),
        Value::Datetime(_) => "a date-time".to_owned(),
        Value::Array(_) => "an array".to_owned(),
        Value::Table(_) => "a table".to_owned(),
    }
}

/// Any value, at a known key.
struct ValueDe<'a> {
    value: &'a Value,
    path: String,
}

impl<'de> de::Deserializer<'de> for ValueDe<'_> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let result = match self.value {
            Value::String(s) => visitor.visit_str(s),
            Value::Integer(i) => visitor.visit_i64(*i),
            // TOML has inf and nan; no value of the format is infinite or undefined, and
            // rejecting them here names the key (a NaN position would otherwise reach the
            // radio model and fail there, without it).
            Value::Float(f) if !f.is_finite() => Err(DeError::message(format!(
                "expected a finite number, found {f}"
            ))),
            Value::Float(f) => visitor.visit_f64(*f),
            Value::Boolean(b) => visitor.visit_bool(*b),
            Value::Datetime(_) => Err(de::Error::invalid_type(
                Unexpected::Other("a date-time"),
                &visitor,
            )),
            Value::Array(items) => {
                let mut seq = SeqDe {
                    iter: items.iter().enumerate(),
                    path: &self.path,
                };
                // A fixed-size array (`[f64; 2]`) reads only the elements it needs; the ones
                // left over are an error, not silently dropped.
                visitor.visit_seq(&mut seq).and_then(|value| {
                    let left = seq.iter.len();
                    if left == 0 {
                        Ok(value)
                    } else {
                        Err(DeError::message(format!(
                            "expected an array of length {}, found an array of {}",
                            items.len() - left,
                            items.len()
                        )))
                    }
                })
            }
            Value::Table(table) => visitor.visit_map(MapDe::new(table, &self.path, None)),
        };
        result.map_err(|e| e.at(&self.path))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        let form = TABLE_ENUMS.iter().find(|(n, _, _)| *n == name);
        let tag = form.map(|(_, tag, _)| *tag);
        let path = &self.path;
        let result = match (self.value, tag) {
            (Value::String(s), _) => visitor.visit_enum(StrEnum {
                variant: s,
                tag,
                path,
            }),
            (Value::Table(table), Some(tag)) => match table.get(tag) {
                Some(Value::String(variant)) => visitor.visit_enum(TaggedEnum {
                    variant,
                    table,
                    tag,
                    variants,
                    path,
                }),
                Some(other) => Err(DeError::message(format!(
                    "expected one of: {}, found {}",
                    variants.join(", "),
                    describe(other)
                ))
                .at(&join_key(path, tag))),
                None => Err(DeError {
                    key: None,
                    field: Some(tag.to_owned()),
                    kind: ErrorKind::MissingKey,
                }),
            },
            (_, Some(_)) if form.is_some_and(|(_, _, scalars)| *scalars) => {
                return self.deserialize_any(visitor);
            }
            // serde's own form of an enum with content, `{variant = content}`: the serialised
            // form of a domain type (a queue limit as `{packets = 500}`) that a file layer
            // produced from the text as written.
            (Value::Table(table), None)
                if table.len() == 1 && table.keys().all(|k| variants.contains(&k.as_str())) =>
            {
                let (variant, content) = table.iter().next().expect("one entry");
                visitor.visit_enum(ExternalEnum {
                    variant,
                    content,
                    variants,
                    path,
                })
            }
            (other, Some(tag)) => Err(DeError::message(format!(
                "expected a table with {tag} = one of: {}, found {}",
                variants.join(", "),
                describe(other)
            ))),
            (other, None) => Err(DeError::message(format!(
                "expected one of: {}, found {}",
                variants.join(", "),
                describe(other)
            ))),
        };
        result.map_err(|e| e.at(path))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct seq tuple tuple_struct map struct identifier
    }
}

/// The content of a table, possibly without its tag key.
struct TableDe<'a> {
    table: &'a Table,
    path: String,
    tag: Option<&'static str>,
}

impl<'de> de::Deserializer<'de> for TableDe<'_> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor
            .visit_map(MapDe::new(self.table, &self.path, self.tag))
            .map_err(|e| e.at(&self.path))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
        unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

struct MapDe<'a> {
    iter: toml::map::Iter<'a, String, Value>,
    current: Option<(&'a String, &'a Value)>,
    path: &'a str,
    tag: Option<&'static str>,
}

impl<'a> MapDe<'a> {
    fn new(table: &'a Table, path: &'a str, tag: Option<&'static str>) -> Self {
        MapDe {
            iter: table.iter(),
            current: None,
            path,
            tag,
        }
    }
}

impl<'de> MapAccess<'de> for MapDe<'_> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        for (key, value) in self.iter.by_ref() {
            if Some(key.as_str()) == self.tag {
                continue;
            }
            self.current = Some((key, value));
            return seed
                .deserialize(KeyDe(key))
                .map(Some)
                .map_err(|e| e.with_tag(self.tag).at(self.path));
        }
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeError> {
        match self.current.take() {
            Some((key, value)) => {
                let path = join_key(self.path, key);
                // An error a type raises after its value was read (a `try_from` conversion) is
                // still the value's.
                seed.deserialize(ValueDe {
                    value,
                    path: path.clone(),
                })
                .map_err(|e| e.at(&path))
            }
            None => Err(DeError::message("value requested before its key").at(self.path)),
        }
    }
}

struct SeqDe<'a, I> {
    iter: I,
    path: &'a str,
}

impl<'de, 'a, I: Iterator<Item = (usize, &'a Value)>> SeqAccess<'de> for SeqDe<'_, I> {
    type Error = DeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeError> {
        match self.iter.next() {
            Some((i, value)) => seed
                .deserialize(ValueDe {
                    value,
                    path: format!("{}[{i}]", self.path),
                })
                .map(Some),
            None => Ok(None),
        }
    }
}

/// A table key or a variant name.
struct KeyDe<'a>(&'a str);

impl<'de> de::Deserializer<'de> for KeyDe<'_> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_str(self.0)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
        unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

/// An enum written as a string: a unit variant.
struct StrEnum<'a> {
    variant: &'a str,
    tag: Option<&'static str>,
    path: &'a str,
}

impl<'de, 'a> EnumAccess<'de> for StrEnum<'a> {
    type Error = DeError;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self), DeError> {
        let value = seed
            .deserialize(KeyDe(self.variant))
            .map_err(|e| e.at(self.path))?;
        Ok((value, self))
    }
}

impl<'de> VariantAccess<'de> for StrEnum<'_> {
    type Error = DeError;

    fn unit_variant(self) -> Result<(), DeError> {
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, _seed: T) -> Result<T::Value, DeError> {
        Err(self.needs_table())
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, _visitor: V) -> Result<V::Value, DeError> {
        Err(self.needs_table())
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, DeError> {
        Err(self.needs_table())
    }
}

impl StrEnum<'_> {
    fn needs_table(&self) -> DeError {
        let tag = self.tag.unwrap_or("kind");
        DeError::message(format!(
            "expected a table like {{ {tag} = \"{}\", … }}, found '{}'",
            self.variant, self.variant
        ))
    }
}

/// An enum as serde writes one with content: a table of one entry, the variant's name and its
/// content.
struct ExternalEnum<'a> {
    variant: &'a str,
    content: &'a Value,
    variants: &'static [&'static str],
    path: &'a str,
}

impl<'de, 'a> EnumAccess<'de> for ExternalEnum<'a> {
    type Error = DeError;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self), DeError> {
        let value = seed
            .deserialize(KeyDe(self.variant))
            .map_err(|e| e.at(self.path))?;
        Ok((value, self))
    }
}

impl<'de> VariantAccess<'de> for ExternalEnum<'_> {
    type Error = DeError;

    /// A unit variant is written as its name, not as a table.
    fn unit_variant(self) -> Result<(), DeError> {
        Err(DeError::message(format!(
            "expected one of: {}, found a table",
            self.variants.join(", ")
        )))
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, DeError> {
        seed.deserialize(ValueDe {
            value: self.content,
            path: join_key(self.path, self.variant),
        })
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, _visitor: V) -> Result<V::Value, DeError> {
        Err(DeError::message("tuple variants are not used by the format").at(self.path))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        de::Deserializer::deserialize_any(
            ValueDe {
                value: self.content,
                path: join_key(self.path, self.variant),
            },
            visitor,
        )
    }
}

/// An enum written as a table tagged by `tag`.
struct TaggedEnum<'a> {
    variant: &'a str,
    table: &'a Table,
    tag: &'static str,
    variants: &'static [&'static str],
    path: &'a str,
}

impl<'de, 'a> EnumAccess<'de> for TaggedEnum<'a> {
    type Error = DeError;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self), DeError> {
        let value = seed
            .deserialize(KeyDe(self.variant))
            .map_err(|e| e.at(&join_key(self.path, self.tag)))?;
        Ok((value, self))
    }
}

impl<'de> VariantAccess<'de> for TaggedEnum<'_> {
    type Error = DeError;

    /// A variant without content: the table holds only the tag. Also reached by hand-written
    /// visitors for tags they do not know, hence the check against the variant list.
    fn unit_variant(self) -> Result<(), DeError> {
        if !self.variants.contains(&self.variant) {
            return Err(
                <DeError as de::Error>::unknown_variant(self.variant, self.variants)
                    .at(&join_key(self.path, self.tag)),
            );
        }
        match self.table.keys().find(|k| k.as_str() != self.tag) {
            Some(extra) => Err(DeError {
                key: Some(join_key(self.path, extra)),
                field: None,
                kind: ErrorKind::UnknownKey(vec![self.tag]),
            }),
            None => Ok(()),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, DeError> {
        seed.deserialize(TableDe {
            table: self.table,
            path: self.path.to_owned(),
            tag: Some(self.tag),
        })
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, _visitor: V) -> Result<V::Value, DeError> {
        Err(DeError::message("tuple variants are not used by the format").at(self.path))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        de::Deserializer::deserialize_any(
            TableDe {
                table: self.table,
                path: self.path.to_owned(),
                tag: Some(self.tag),
            },
            visitor,
        )
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::Deserialize;

    use super::*;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Inner {
        count: u32,
        #[serde(default)]
        flag: bool,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "snake_case")]
    enum Colour {
        Red,
        Green,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "snake_case")]
    enum QueueFile {
        Small(Inner),
        Big { size: u64 },
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Root {
        items: BTreeMap<String, Inner>,
        #[serde(default)]
        colour: Option<Colour>,
        #[serde(default)]
        list: Vec<u16>,
        #[serde(default)]
        queue: Option<QueueFile>,
        #[serde(default)]
        pair: Option<[f64; 2]>,
    }

    fn load(text: &str) -> Result<Root, ScenarioError> {
        from_table(&text.parse::<Table>().expect("valid TOML in test"))
    }

    fn err(text: &str) -> String {
        load(text).expect_err("expected an error").to_string()
    }

    #[test]
    fn values_deserialize() {
        let root = load("colour = 'green'\nlist = [1, 2]\nqueue = { kind = 'big', size = 7 }\n[items.a]\ncount = 3")
            .expect("valid");
        assert_eq!(
            root.items["a"],
            Inner {
                count: 3,
                flag: false
            }
        );
        assert_eq!(root.colour, Some(Colour::Green));
        assert_eq!(root.list, vec![1, 2]);
        assert_eq!(root.queue, Some(QueueFile::Big { size: 7 }));
        let small =
            load("items = {}\nqueue = { kind = 'small', count = 1, flag = true }").expect("valid");
        assert_eq!(
            small.queue,
            Some(QueueFile::Small(Inner {
                count: 1,
                flag: true
            }))
        );
    }

    /// serde's form of a variant with content, as `unit_keys` writes a queue limit for its
    /// domain type; a unit variant written that way keeps the message of a wrong value.
    #[test]
    fn a_variant_with_content_reads_from_a_table_of_one_entry() {
        #[derive(Debug, Deserialize, PartialEq)]
        #[serde(rename_all = "snake_case")]
        enum Limit {
            Packets(u32),
            Bytes(u64),
            None,
        }
        let read = |text: &str| -> Result<Limit, ScenarioError> {
            let table: Table = text.parse().expect("valid TOML in test");
            from_value_at(&table["limit"], "limit")
        };
        assert_eq!(
            read("limit = { packets = 500 }").unwrap(),
            Limit::Packets(500)
        );
        assert_eq!(
            read("limit = { bytes = 1000000 }").unwrap(),
            Limit::Bytes(1_000_000)
        );
        assert_eq!(
            read("limit = { packets = -1 }").unwrap_err().to_string(),
            "limit.packets: expected an integer from 0 to 4294967295, found -1"
        );
        assert_eq!(
            read("limit = { none = 1 }").unwrap_err().to_string(),
            "limit: expected one of: packets, bytes, none, found a table"
        );
        assert_eq!(
            read("limit = { packets = 1, bytes = 2 }")
                .unwrap_err()
                .to_string(),
            "limit: expected one of: packets, bytes, none, found a table"
        );
    }

    #[test]
    fn errors_name_the_key() {
        assert_eq!(
            err("[items.a]\ncount = 1\ncolour = 2"),
            "items.a.colour: unknown key; expected one of: count, flag"
        );
        assert_eq!(
            err("[items.a]\nflag = true"),
            "items.a.count: required key is missing"
        );
        assert_eq!(
            err("[items.a]\ncount = -1"),
            "items.a.count: expected an integer from 0 to 4294967295, found -1"
        );
        assert_eq!(
            err("[items.a]\ncount = 1\nflag = 'yes'"),
            "items.a.flag: expected a boolean, found 'yes'"
        );
        assert_eq!(
            err("items = {}\nlist = [1, 70000]"),
            "list[1]: expected an integer from 0 to 65535, found 70000"
        );
        assert_eq!(
            err("items = {}\ncolour = 'blue'"),
            "colour: 'blue' is not one of: red, green"
        );
        assert_eq!(
            err("items = {}\ncolour = 3"),
            "colour: expected one of: red, green, found 3"
        );
        assert_eq!(err("items = 5"), "items: expected a table, found 5");
        assert_eq!(
            err("items = {}\nextra = 1"),
            "extra: unknown key; expected one of: items, colour, list, queue, pair"
        );
        assert_eq!(err("colour = 'red'"), "items: required key is missing");
        assert_eq!(
            err("items = {}\npair = [1.0, 2.0, 3.0]"),
            "pair: expected an array of length 2, found an array of 3"
        );
        assert_eq!(
            err("items = {}\npair = [1.0, nan]"),
            "pair[1]: expected a finite number, found NaN"
        );
        assert_eq!(
            err("items = {}\npair = [-inf, 1.0]"),
            "pair[0]: expected a finite number, found -inf"
        );
        assert!(load("items = {}\npair = [1.0, 2.0]").is_ok());
        assert_eq!(
            err("items = {}\nlist = 1979-05-27"),
            "list: expected an array, found a date-time"
        );
    }

    #[test]
    fn tagged_tables_keep_nested_keys() {
        assert_eq!(
            err("items = {}\nqueue = { kind = 'small', count = 'x' }"),
            "queue.count: expected an integer from 0 to 4294967295, found 'x'"
        );
        assert_eq!(
            err("items = {}\nqueue = { kind = 'small', count = 1, size = 2 }"),
            "queue.size: unknown key; expected one of: kind, count, flag"
        );
        assert_eq!(
            err("items = {}\nqueue = { kind = 'huge' }"),
            "queue.kind: 'huge' is not one of: small, big"
        );
        assert_eq!(
            err("items = {}\nqueue = { count = 1 }"),
            "queue.kind: required key is missing"
        );
        assert_eq!(
            err("items = {}\nqueue = { kind = 1 }"),
            "queue.kind: expected one of: small, big, found 1"
        );
        assert_eq!(
            err("items = {}\nqueue = 'small'"),
            "queue: expected a table like { kind = \"small\", … }, found 'small'"
        );
        assert_eq!(
            err("items = {}\nqueue = 4"),
            "queue: expected a table with kind = one of: small, big, found 4"
        );
        assert_eq!(
            err("items = {}\nqueue = { kind = 'big' }"),
            "queue.size: required key is missing"
        );
    }
}
