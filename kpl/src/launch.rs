//! The launch a kernel is checked for: block and grid sizes, the warp size, parameters
//! pinned to a value, relations between them, and where each fact came from.
//!
//! Every stage reads the launch from this one type: the CUDA front end (the warp size of
//! a `thread_block_tile<32>`), both oracles (`oracle::CheckOptions::launch`), the cost
//! models and the reports. It is built by one merge ([`Launch::over`]) of the layers a
//! launch can come from, highest precedence first: command-line flags, the file's
//! header comment, the host code's launches of the kernel, `__launch_bounds__`, and the
//! kernel's own preconditions ([`Launch::of_requires`]: `requires bdim == 256`).

use std::collections::BTreeMap;
use std::fmt;

use crate::ir::{BinOp, Builtin, Expr, Kernel};

/// A size in x, y, z.
pub type Dim3 = [u32; 3];

/// A size in x, y, z, each known or symbolic (`None`).
pub type Dims = [Option<u32>; 3];

/// A size whose three components are all known, or none.
pub fn dims(d: Option<Dim3>) -> Dims {
    match d {
        Some([x, y, z]) => [Some(x), Some(y), Some(z)],
        None => [None; 3],
    }
}

/// The three components when all are known.
pub fn known(d: &Dims) -> Option<Dim3> {
    Some([d[0]?, d[1]?, d[2]?])
}

/// Where a launch fact came from, highest precedence first (the order of [`Launch::over`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// The command line (`--block-dim`, `--grid-dim`, `--param`, `--warp-size`).
    Flags,
    /// The file's GPUVerify header comment (`//--blockDim=256 --gridDim=64`).
    Header,
    /// The host code's launches of the kernel in the same translation unit.
    Host,
    /// `__launch_bounds__(maxThreads)` on the kernel.
    Bounds,
    /// The kernel's own preconditions (`__requires(blockDim.x == 256)`, `requires` in KPL).
    Requires,
}

impl Origin {
    pub fn word(self) -> &'static str {
        match self {
            Origin::Flags => "flags",
            Origin::Header => "header",
            Origin::Host => "host",
            Origin::Bounds => "bounds",
            Origin::Requires => "requires",
        }
    }
}

/// A place in the source that launches the kernel (a `<<<...>>>` or a launch API call).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Site {
    /// The file the launch is in, as the user named it (an include's path for a launch
    /// in a header).
    pub file: String,
    /// 1-based line of the launch.
    pub line: u32,
}

/// What is known about the launch a kernel is checked for. `Default` is the symbolic
/// launch: any sizes within CUDA's limits, every parameter any value of its type.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Launch {
    /// Threads per block in x, y, z.
    pub block: Dims,
    /// Blocks per grid in x, y, z.
    pub grid: Dims,
    /// At most this many threads per block (`__launch_bounds__`); CUDA's 1024 otherwise.
    pub max_threads: Option<u32>,
    /// Threads of one warp run in lock step (`--warp-size`, the header's `--warp-sync`);
    /// `None`: no lock step below the block, and `__syncwarp()` and a tile of 32 are
    /// CUDA's warps of 32.
    pub warp_size: Option<u32>,
    /// Scalar parameters with a known value.
    pub params: BTreeMap<String, i64>,
    /// Relations between launch sizes and parameters that hold for every launch (boolean
    /// KPL expressions over `bdim`, `gdim` and scalar parameters): `bdim.x == bdim.y` for
    /// `dim3 threads(bs, bs)`, `gdim.x == (n + 255) / 256`. They are preconditions of the
    /// kernel for both oracles ([`Launch::constrain`]).
    pub relations: Vec<Expr>,
    /// Launched with `cudaLaunchCooperativeKernel` (or `--cooperative`): grid barriers are legal.
    pub cooperative: bool,
    /// The layers that gave at least one fact, in precedence order.
    pub sources: Vec<Origin>,
    /// The host launches this launch stands for (empty unless [`Origin::Host`]).
    pub sites: Vec<Site>,
}

impl Launch {
    /// A launch of fixed sizes.
    pub fn fixed(block: Dim3, grid: Dim3) -> Launch {
        Launch {
            block: dims(Some(block)),
            grid: dims(Some(grid)),
            ..Launch::default()
        }
    }

    /// The block size when every component is known.
    pub fn block_dim(&self) -> Option<Dim3> {
        known(&self.block)
    }

    /// The grid size when every component is known.
    pub fn grid_dim(&self) -> Option<Dim3> {
        known(&self.grid)
    }

    /// The warp size `__syncwarp()` synchronizes: the given one, else CUDA's 32.
    pub fn warp_barrier_size(&self) -> u32 {
        self.warp_size.unwrap_or(32)
    }

    /// The most threads a block may have: the launch bounds, else CUDA's 1024.
    pub fn thread_limit(&self) -> u32 {
        self.max_threads.unwrap_or(1024).min(1024)
    }

    /// Whether no layer gave any fact.
    pub fn is_symbolic(&self) -> bool {
        self.sources.is_empty()
    }

    /// The layer of highest precedence that gave a fact, if any.
    pub fn source(&self) -> Option<Origin> {
        self.sources.first().copied()
    }

    /// Marks every fact of `self` as coming from `origin` (for a layer built by hand).
    pub fn from(mut self, origin: Origin) -> Launch {
        self.sources = if self.has_facts() {
            vec![origin]
        } else {
            Vec::new()
        };
        self
    }

    fn has_facts(&self) -> bool {
        self.block.iter().chain(&self.grid).any(Option::is_some)
            || self.max_threads.is_some()
            || self.warp_size.is_some()
            || !self.params.is_empty()
            || !self.relations.is_empty()
            || self.cooperative
    }

    /// `self` over a layer of lower precedence: each fact of `self` wins, the lower one
    /// fills what `self` leaves open. Relations of both hold (a contradiction is reported
    /// by the oracles as preconditions no launch satisfies); the tighter launch bound wins.
    pub fn over(mut self, lower: &Launch) -> Launch {
        for d in 0..3 {
            self.block[d] = self.block[d].or(lower.block[d]);
            self.grid[d] = self.grid[d].or(lower.grid[d]);
        }
        self.max_threads = match (self.max_threads, lower.max_threads) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.warp_size = self.warp_size.or(lower.warp_size);
        for (p, v) in &lower.params {
            self.params.entry(p.clone()).or_insert(*v);
        }
        for r in &lower.relations {
            if !self.relations.contains(r) {
                self.relations.push(r.clone());
            }
        }
        self.cooperative |= lower.cooperative;
        for o in &lower.sources {
            if !self.sources.contains(o) {
                self.sources.push(*o);
            }
        }
        self.sources.sort();
        if self.sites.is_empty() {
            self.sites = lower.sites.clone();
        }
        self
    }

    /// What a kernel's preconditions pin to a constant: `requires bdim == 256 && n == 4`
    /// (conjuncts `X == c` or `c == X` with `X` a launch size or a scalar parameter). The
    /// one reading of pins: the verifier, the interpreter and the cost models all see
    /// them through the merged launch.
    pub fn of_requires(kernel: &Kernel) -> Launch {
        let mut cs = Vec::new();
        for r in &kernel.requires {
            conjuncts(r, &mut cs);
        }
        let scalars: Vec<&str> = kernel.scalars().collect();
        let mut l = Launch::default();
        for c in cs {
            let Expr::Binary(BinOp::Eq, a, b) = c else {
                continue;
            };
            let (x, v) = match (&**a, &**b) {
                (x, Expr::Int(v)) | (Expr::Int(v), x) => (x, *v),
                _ => continue,
            };
            match x {
                Expr::Builtin(Builtin::Bdim(d)) => {
                    l.block[d.index()] = u32::try_from(v).ok().filter(|v| *v >= 1);
                }
                Expr::Builtin(Builtin::Gdim(d)) => {
                    l.grid[d.index()] = u32::try_from(v).ok().filter(|v| *v >= 1);
                }
                Expr::Var(n) if scalars.contains(&n.as_str()) => {
                    l.params.insert(n.clone(), v);
                }
                _ => {}
            }
        }
        l.from(Origin::Requires)
    }

    /// The launch `self` merged over the kernel's own preconditions.
    pub fn for_kernel(&self, kernel: &Kernel) -> Launch {
        self.clone().over(&Launch::of_requires(kernel))
    }

    /// `kernel` with the relations of `self` among its preconditions (both oracles
    /// honour preconditions; sizes and parameters stay in the launch).
    pub fn constrain(&self, kernel: &Kernel) -> Kernel {
        let mut k = kernel.clone();
        for r in &self.relations {
            if !k.requires.contains(r) {
                k.requires.push(r.clone());
            }
        }
        k
    }
}

impl Launch {
    /// What a report says the kernel was checked for: `launch from line 21: 16×16
    /// threads, ? blocks (where bdim.x == bdim.y)`.
    pub fn describe(&self) -> String {
        let lines: Vec<String> = self.sites.iter().map(|s| s.line.to_string()).collect();
        let from = match lines.as_slice() {
            [] => "launch".to_string(),
            [one] => format!("launch from line {one}"),
            many => format!("launch from lines {}", many.join(", ")),
        };
        let mut note = format!("{from}: {self}");
        if !self.relations.is_empty() {
            let rs: Vec<String> = self.relations.iter().map(crate::syntax::print_expr).collect();
            note.push_str(&format!(" (where {})", rs.join(", ")));
        }
        if self.cooperative {
            note.push_str(", cooperative");
        }
        note
    }
}

fn conjuncts<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match e {
        Expr::Binary(BinOp::And, a, b) => {
            conjuncts(a, out);
            conjuncts(b, out);
        }
        _ => out.push(e),
    }
}

impl fmt::Display for Launch {
    /// `16×16 threads, 4×4 blocks`, `256 threads, any grid`, with pinned parameters.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let size = |d: &Dims, unit: &str| -> String {
            // Trailing dimensions known to be 1 are not shown.
            let used = (1..3).rev().find(|&i| d[i] != Some(1)).map_or(1, |i| i + 1);
            if d.iter().all(Option::is_none) {
                return format!("any {unit}s");
            }
            let parts: Vec<String> = d[..used]
                .iter()
                .map(|c| c.map_or("?".to_string(), |v| v.to_string()))
                .collect();
            let plural = if used == 1 && d[0] == Some(1) { "" } else { "s" };
            format!("{} {unit}{plural}", parts.join("×"))
        };
        write!(
            f,
            "{}, {}",
            size(&self.block, "thread"),
            size(&self.grid, "block")
        )?;
        if let Some(m) = self.max_threads {
            write!(f, ", at most {m} threads per block")?;
        }
        for (p, v) in &self.params {
            write!(f, ", {p} = {v}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn higher_layers_win_and_lower_ones_fill_in() {
        let flags = Launch {
            block: [Some(64), None, None],
            ..Launch::default()
        }
        .from(Origin::Flags);
        let host = Launch {
            block: [Some(128), Some(1), Some(1)],
            grid: [None, Some(1), Some(1)],
            max_threads: Some(256),
            ..Launch::default()
        }
        .from(Origin::Host);
        let bounds = Launch {
            max_threads: Some(128),
            ..Launch::default()
        }
        .from(Origin::Bounds);
        let l = flags.over(&host).over(&bounds);
        assert_eq!(l.block, [Some(64), Some(1), Some(1)]);
        assert_eq!(l.grid, [None, Some(1), Some(1)]);
        assert_eq!(l.max_threads, Some(128));
        assert_eq!(l.sources, vec![Origin::Flags, Origin::Host, Origin::Bounds]);
        assert_eq!(l.source(), Some(Origin::Flags));
    }

    #[test]
    fn requires_pins_sizes_and_parameters() {
        let k = &crate::parse("kernel k(shared A[], n) requires bdim == 256 && n == 4 && gdim.y == 2 { }")
            .unwrap()[0];
        let l = Launch::of_requires(k);
        assert_eq!(l.block, [Some(256), None, None]);
        assert_eq!(l.grid, [None, Some(2), None]);
        assert_eq!(l.params.get("n"), Some(&4));
        assert_eq!(l.source(), Some(Origin::Requires));
        assert!(Launch::default().for_kernel(k).block[0] == Some(256));
    }

    #[test]
    fn display_names_known_and_symbolic_sizes() {
        let l = Launch {
            block: [Some(16), Some(16), Some(1)],
            grid: [None, None, Some(1)],
            ..Launch::default()
        };
        assert_eq!(l.to_string(), "16×16 threads, ?×? blocks");
        assert_eq!(
            Launch::fixed([256, 1, 1], [1, 1, 1]).to_string(),
            "256 threads, 1 block"
        );
        assert_eq!(Launch::default().to_string(), "any threads, any blocks");
    }
}
