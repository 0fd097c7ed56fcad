//! The async engine (stub: being written).
