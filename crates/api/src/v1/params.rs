//! Reading query and path parameters. Each is taken as text and read here, so every mistake
//! becomes a 400 problem that names the parameter and says what it expects.

use super::{DEFAULT_LIMIT, MAX_LIMIT};
use crate::problem::Problem;
use chrono::{DateTime, NaiveDate, Utc};
use tidings_model::FeedId;

/// A feed id: a positive whole number.
pub fn feed_id(parameter: &'static str, text: &str) -> Result<FeedId, Problem> {
    match text.parse::<i64>() {
        Ok(id) if id > 0 => Ok(FeedId(id)),
        _ => Err(Problem::invalid(
            parameter,
            format!("a feed id is a positive whole number, not {text:?}"),
        )),
    }
}

/// The page size: [`DEFAULT_LIMIT`] when absent, else 1 to [`MAX_LIMIT`].
pub fn limit(text: Option<&str>) -> Result<u32, Problem> {
    let Some(text) = text else {
        return Ok(DEFAULT_LIMIT);
    };
    match text.parse::<u32>() {
        Ok(n) if (1..=MAX_LIMIT).contains(&n) => Ok(n),
        _ => Err(Problem::invalid(
            "limit",
            format!("limit is a whole number from 1 to {MAX_LIMIT}, not {text:?}"),
        )),
    }
}

/// The schema of a time parameter, as [`time`] reads it: an RFC 3339 time or a date.
pub fn time_schema() -> utoipa::openapi::schema::Schema {
    use utoipa::openapi::schema::{KnownFormat, ObjectBuilder, OneOfBuilder, SchemaFormat, Type};
    let string = |format| {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .format(Some(SchemaFormat::KnownFormat(format)))
    };
    OneOfBuilder::new()
        .description(Some("An RFC 3339 time, or a date (midnight UTC)."))
        .item(string(KnownFormat::DateTime).examples([serde_json::json!("2026-11-30T12:00:00Z")]))
        .item(string(KnownFormat::Date).examples([serde_json::json!("2026-11-30")]))
        .build()
        .into()
}

/// A time: RFC 3339 (`2026-11-30T12:00:00Z`) or a date (`2026-11-30`, midnight UTC).
pub fn time(parameter: &'static str, text: &str) -> Result<DateTime<Utc>, Problem> {
    if let Ok(at) = DateTime::parse_from_rfc3339(text) {
        return Ok(at.with_timezone(&Utc));
    }
    if let Some(at) = NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
    {
        return Ok(at.and_utc());
    }
    Err(Problem::invalid(
        parameter,
        format!(
            "{parameter} is an RFC 3339 time (2026-11-30T12:00:00Z) or a date (2026-11-30), \
             not {text:?}"
        ),
    ))
}

/// A yes/no switch: `true` or `false` (also `1`/`0`, `yes`/`no`); absent is `false`.
pub fn flag(parameter: &'static str, text: Option<&str>) -> Result<bool, Problem> {
    match text.map(|t| t.trim().to_ascii_lowercase()).as_deref() {
        None | Some("false" | "0" | "no") => Ok(false),
        Some("true" | "1" | "yes") => Ok(true),
        Some(_) => Err(Problem::invalid(
            parameter,
            format!(
                "{parameter} is true or false, not {:?}",
                text.unwrap_or_default()
            ),
        )),
    }
}

/// A category name: not blank, at most 200 characters.
pub fn category(text: &str) -> Result<String, Problem> {
    let trimmed = text.trim();
    if trimmed.is_empty() || trimmed.chars().count() > 200 {
        return Err(Problem::invalid(
            "category",
            "category is a category name of 1 to 200 characters",
        ));
    }
    Ok(trimmed.to_owned())
}

/// A JSON body that must be an object of shape `T`; `shape` shows one in the problem. Serde
/// alone would also read a struct from an array of its fields (`[null, true]`), which no client
/// means and the API does not document.
pub fn json_object<T: serde::de::DeserializeOwned>(
    body: Result<axum::Json<serde_json::Value>, axum::extract::rejection::JsonRejection>,
    shape: &str,
) -> Result<T, Problem> {
    let invalid =
        |why: String| Problem::invalid("body", format!("the body is JSON like {shape}: {why}"));
    let axum::Json(value) = body.map_err(|e| invalid(e.body_text()))?;
    if !value.is_object() {
        return Err(invalid("it is not a JSON object".to_owned()));
    }
    serde_json::from_value(value).map_err(|e| invalid(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_bodies_are_objects_of_the_shape() {
        #[derive(Debug, serde::Deserialize, PartialEq)]
        #[serde(deny_unknown_fields)]
        struct Shape {
            a: Option<bool>,
        }
        let read = |v: serde_json::Value| json_object::<Shape>(Ok(axum::Json(v)), "{\"a\": true}");
        assert_eq!(
            read(serde_json::json!({"a": true})).unwrap(),
            Shape { a: Some(true) }
        );
        for bad in [
            serde_json::json!([true]),
            serde_json::json!([null]),
            serde_json::json!("a"),
            serde_json::json!({"a": 1}),
            serde_json::json!({"b": true}),
        ] {
            let problem = read(bad.clone()).unwrap_err();
            assert_eq!(problem.parameter, Some("body"), "{bad}");
            assert!(
                problem
                    .detail
                    .starts_with("the body is JSON like {\"a\": true}: "),
                "{bad}"
            );
        }
    }

    #[test]
    fn flags_are_true_or_false() {
        assert!(!flag("mine", None).unwrap());
        for yes in ["true", "TRUE", "1", "yes"] {
            assert!(flag("mine", Some(yes)).unwrap(), "{yes}");
        }
        for no in ["false", "0", "no"] {
            assert!(!flag("mine", Some(no)).unwrap(), "{no}");
        }
        for bad in ["", "maybe", "2"] {
            assert_eq!(
                flag("mine", Some(bad)).unwrap_err().parameter,
                Some("mine"),
                "{bad}"
            );
        }
    }

    #[test]
    fn categories_are_names() {
        assert_eq!(category("  Rust ").unwrap(), "Rust");
        for bad in ["", "   ", &"x".repeat(201)] {
            assert!(category(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn limits_are_bounded() {
        assert_eq!(limit(None).unwrap(), 50);
        assert_eq!(limit(Some("1")).unwrap(), 1);
        assert_eq!(limit(Some("500")).unwrap(), 500);
        for bad in ["0", "501", "-1", "ten", "", "1.5", "99999999999"] {
            assert_eq!(
                limit(Some(bad)).unwrap_err().parameter,
                Some("limit"),
                "{bad}"
            );
        }
    }

    #[test]
    fn feed_ids_are_positive_numbers() {
        assert_eq!(feed_id("id", "7").unwrap(), FeedId(7));
        for bad in ["0", "-3", "x", "", "7.0", "99999999999999999999"] {
            assert_eq!(
                feed_id("id", bad).unwrap_err().parameter,
                Some("id"),
                "{bad}"
            );
        }
    }

    #[test]
    fn times_are_rfc3339_or_dates() {
        let noon = time("since", "2026-11-30T12:00:00+01:00").unwrap();
        assert_eq!(noon.to_rfc3339(), "2026-11-30T11:00:00+00:00");
        let day = time("until", "2026-11-30").unwrap();
        assert_eq!(day.to_rfc3339(), "2026-11-30T00:00:00+00:00");
        for bad in ["yesterday", "2026-13-01", "24h", ""] {
            assert_eq!(
                time("since", bad).unwrap_err().parameter,
                Some("since"),
                "{bad}"
            );
        }
    }
}
