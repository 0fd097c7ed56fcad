//! Errors as `application/problem+json` (RFC 9457), each with a stable `type`.
