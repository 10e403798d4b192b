//! The dynamic SDV interpreter (placeholder: being written).

use crate::{CheckOptions, Oracle, OracleError, Report};
use kpl::Kernel;

/// Runs kernels under the SDV semantics.
pub struct Interpreter {
    pub opts: CheckOptions,
}

impl Interpreter {
    pub fn new(opts: CheckOptions) -> Interpreter {
        Interpreter { opts }
    }
}

impl Oracle for Interpreter {
    fn name(&self) -> &'static str {
        "dynamic"
    }

    fn check(&mut self, _kernel: &Kernel) -> Result<Report, OracleError> {
        Ok(Report::default())
    }
}
