//! Typed reads of JSON lines that are as lenient as a parsed value.
//!
//! The Codex CLI and Gemini CLI readers once built every line they read as
//! a `serde_json::Value`, then looked up the few keys they need. That
//! reading is lenient: a key of an unexpected type reads as absent
//! (`v.get("id").and_then(Value::as_str)`), a key given twice holds its
//! last value, and any other key is ignored. It is also dear: every key
//! of every object is built, to be dropped at once. In the `stopgate`
//! binary, whose settings editor keeps the user's key order, serde_json's
//! `preserve_order` makes each object an `IndexMap` hashed with SipHash,
//! and a Gemini CLI log's model messages carry their tools' whole output.
//!
//! A type here reads only the keys it names and skips every other value
//! unbuilt, with the same leniency. It says how it takes each kind of
//! value ([`Lenient`]); a value of a kind it does not take reads as
//! [`Lenient::other`], never as an error, so a line that a parsed value
//! would accept is never rejected. Derived readers would reject a line
//! with a repeated key or a field of the wrong type.

use std::borrow::Cow;
use std::marker::PhantomData;

use serde::de::{IgnoredAny, MapAccess, SeqAccess};

/// How a type reads each kind of JSON value. Only what a type takes needs
/// saying: by default an object or a list is skipped, and every value
/// reads as [`Lenient::other`].
pub(super) trait Lenient: Sized {
    /// The reading of a value the type does not take: a number, a
    /// boolean, `null`, and by default any value at all.
    fn other() -> Self;

    /// The reading of a string.
    fn string(s: &str) -> Self {
        let _ = s;
        Self::other()
    }

    /// The reading of an object, whose entries `map` gives; every entry
    /// must be read or skipped.
    fn object<'de, A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Self::other())
    }

    /// The reading of a list, whose elements `seq` gives; every element
    /// must be read or skipped.
    fn list<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<Self, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Self::other())
    }
}

/// Implements `serde::Deserialize` for [`Lenient`] types.
macro_rules! deserialize_leniently {
    ($($t:ty),+ $(,)?) => {$(
        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(
                d: D,
            ) -> Result<Self, D::Error> {
                $crate::read::lenient::read(d)
            }
        }
    )+};
}
pub(super) use deserialize_leniently;

/// Read a value as `T` does.
pub(super) fn read<'de, T: Lenient, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<T, D::Error> {
    d.deserialize_any(Reader(PhantomData))
}

/// The visitor of every [`Lenient`] type.
struct Reader<T>(PhantomData<T>);

impl<'de, T: Lenient> serde::de::Visitor<'de> for Reader<T> {
    type Value = T;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_str<E>(self, v: &str) -> Result<T, E> {
        Ok(T::string(v))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        T::object(map)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<T, A::Error> {
        T::list(seq)
    }
    fn visit_bool<E>(self, _: bool) -> Result<T, E> {
        Ok(T::other())
    }
    fn visit_i64<E>(self, _: i64) -> Result<T, E> {
        Ok(T::other())
    }
    fn visit_u64<E>(self, _: u64) -> Result<T, E> {
        Ok(T::other())
    }
    fn visit_f64<E>(self, _: f64) -> Result<T, E> {
        Ok(T::other())
    }
    fn visit_unit<E>(self) -> Result<T, E> {
        Ok(T::other())
    }
    fn visit_none<E>(self) -> Result<T, E> {
        Ok(T::other())
    }
}

/// A string, kept only when the value is one.
#[derive(Debug, Default)]
pub(super) struct Str(pub(super) Option<String>);

impl Lenient for Str {
    fn other() -> Str {
        Str(None)
    }
    fn string(s: &str) -> Str {
        Str(Some(s.to_string()))
    }
}

/// Whether the value is an object; its entries are skipped.
#[derive(Debug, Default)]
pub(super) struct IsObject(pub(super) bool);

impl Lenient for IsObject {
    fn other() -> IsObject {
        IsObject(false)
    }
    fn object<'de, A: MapAccess<'de>>(
        mut map: A,
    ) -> Result<IsObject, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(IsObject(true))
    }
}

/// A value of any kind, skipped: for a key whose presence is what counts.
#[derive(Debug, Default)]
pub(super) struct Present;

impl Lenient for Present {
    fn other() -> Present {
        Present
    }
}

deserialize_leniently!(Str, IsObject, Present);

/// Skip the value of a key whose presence is what counts: `true`.
pub(super) fn present<'de, A: MapAccess<'de>>(
    map: &mut A,
) -> Result<bool, A::Error> {
    map.next_value::<Present>().map(|Present| true)
}

/// Read an object's entries: `read` reads the value of a key it takes
/// and says so (`Ok(true)`); the value of any other key is skipped. A key
/// given twice is read twice, so the last value stands.
pub(super) fn entries<'de, A: MapAccess<'de>>(
    mut map: A,
    mut read: impl FnMut(&str, &mut A) -> Result<bool, A::Error>,
) -> Result<(), A::Error> {
    while let Some(key) = map.next_key::<Key>()? {
        if !read(&key, &mut map)? {
            map.next_value::<IgnoredAny>()?;
        }
    }
    Ok(())
}

/// An object's key, borrowed from the line when it holds no escape: keys
/// are compared, then dropped.
pub(super) struct Key<'de>(Cow<'de, str>);

impl std::ops::Deref for Key<'_> {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(
        d: D,
    ) -> Result<Key<'de>, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Key<'de>;

            fn expecting(
                &self,
                f: &mut std::fmt::Formatter<'_>,
            ) -> std::fmt::Result {
                f.write_str("an object's key")
            }
            fn visit_borrowed_str<E>(
                self,
                v: &'de str,
            ) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_string())))
            }
        }
        d.deserialize_str(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two fields read leniently, as a test of the trait's defaults.
    #[derive(Debug, Default, PartialEq)]
    struct Pair {
        name: Option<String>,
        nested: bool,
    }

    impl Lenient for Pair {
        fn other() -> Pair {
            Pair::default()
        }
        fn object<'de, A: MapAccess<'de>>(map: A) -> Result<Pair, A::Error> {
            let mut p = Pair::default();
            entries(map, |key, map| {
                match key {
                    "name" => p.name = map.next_value::<Str>()?.0,
                    "nested" => p.nested = map.next_value::<IsObject>()?.0,
                    _ => return Ok(false),
                }
                Ok(true)
            })?;
            Ok(p)
        }
    }

    deserialize_leniently!(Pair);

    fn simd<T: serde::de::DeserializeOwned>(json: &str) -> Option<T> {
        let mut bytes = json.as_bytes().to_vec();
        simd_json::serde::from_slice(&mut bytes).ok()
    }

    /// Against a parsed value: the same fields, whatever their types,
    /// with repeated keys, escaped keys and values of every kind, through
    /// serde_json and simd-json alike.
    #[test]
    fn reads_as_a_parsed_value_does() {
        let cases = [
            r#"{"name":"a","nested":{"x":[1,{"y":2}]}}"#,
            r#"{"name":"a","name":"b"}"#,
            r#"{"name":"a","name":5,"nested":{},"nested":[]}"#,
            r#"{"na\u006de":"escaped key","other":[1,2,{"name":"no"}]}"#,
            r#"{"name":null,"nested":"x"}"#,
            r#"{"other":-1.5e300,"name":"a number before"}"#,
            r#"[{"name":"a list"}]"#,
            r#""a string""#,
            r#"12"#,
            r#"null"#,
            r#"true"#,
        ];
        for json in cases {
            let v: serde_json::Value = serde_json::from_str(json).unwrap();
            let want = Pair {
                name: v.get("name").and_then(|n| n.as_str()).map(Into::into),
                nested: v.get("nested").is_some_and(|n| n.is_object()),
            };
            let got: Pair = serde_json::from_str(json).unwrap();
            assert_eq!(got, want, "{json}");
            assert_eq!(simd::<Pair>(json), Some(want), "{json}");
        }
    }
}
