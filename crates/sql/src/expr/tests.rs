//! Data-driven tests of binding and evaluation.
