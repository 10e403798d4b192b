//! The launch configuration a kernel file carries in a GPUVerify-style header comment
//! (`//--blockDim=256 --gridDim=64`, `//--blockDim=[32,32,1]`), shared by every front end.

use crate::launch::{Launch, Origin, dims};

/// A size in x, y, z.
pub type Size3 = crate::launch::Dim3;

/// The first comment line that starts with `//--` (the GPUVerify benchmark convention),
/// or with `// --` followed by a launch flag (the CUDA SDK's copies write
/// `// --blockDim=...`; a prose comment such as `// -- helpers --` is not a header).
fn header_line(text: &str) -> Option<&str> {
    text.lines().map(str::trim).find(|l| is_header(l))
}

/// The flags that make a `// --...` comment (with a space) a header.
const LAUNCH_FLAGS: [&str; 3] = ["--blockDim=", "--gridDim=", "--warp-sync="];

fn is_header(line: &str) -> bool {
    if line.starts_with("//--") {
        return true;
    }
    let Some(rest) = line.strip_prefix("//") else {
        return false;
    };
    rest.trim_start().starts_with("--")
        && rest
            .split_whitespace()
            .any(|a| LAUNCH_FLAGS.iter().any(|f| a.starts_with(f)))
}

/// The 1-based line of the header comment, if the file has one (where its errors point).
pub fn header_line_number(text: &str) -> Option<u32> {
    let i = text.lines().position(|l| is_header(l.trim()))?;
    u32::try_from(i + 1).ok()
}

/// The launch the header comment gives (an [`Origin::Header`] layer): `--blockDim=`,
/// `--gridDim=` (`//--blockDim=256 --gridDim=64`, `//--blockDim=[32,32,1]`) and
/// `--warp-sync=N` (legacy warp-synchronous code that relies on lock step inside warps
/// of `N` threads).
pub fn header_launch(text: &str) -> Result<Launch, String> {
    let Some(line) = header_line(text) else {
        return Ok(Launch::default());
    };
    let mut l = Launch::default();
    for arg in line.trim_start_matches("//").split_whitespace() {
        if let Some(v) = arg.strip_prefix("--blockDim=") {
            l.block = dims(Some(parse_block_dim(v.trim_matches(['[', ']']))?));
        } else if let Some(v) = arg.strip_prefix("--gridDim=") {
            l.grid = dims(Some(parse_grid_dim(v.trim_matches(['[', ']']))?));
        } else if let Some(v) = arg.strip_prefix("--warp-sync=") {
            l.warp_size = Some(parse_warp_size(v)?);
        }
    }
    Ok(l.from(Origin::Header))
}

/// Whether the header comment carries GPUVerify's `--only-intra-group` (check races
/// between threads of one block only).
pub fn header_only_intra_group(text: &str) -> bool {
    header_line(text).is_some_and(|l| l.split_whitespace().any(|a| a == "--only-intra-group"))
}

/// A warp size: a positive integer.
pub fn parse_warp_size(s: &str) -> Result<u32, String> {
    s.trim()
        .parse::<u32>()
        .ok()
        .filter(|v| *v >= 1)
        .ok_or_else(|| format!("`{s}` is not a warp size: expected a positive integer"))
}

/// The `-DNAME` and `-DNAME=VALUE` flags of the same header comment line (GPUVerify
/// benchmarks configure some kernels this way: `//--blockDim=64 --gridDim=1 -DWIDTH=64`),
/// as object-like macros (`NAME` alone is `1`, as with a compiler).
pub fn header_defines(text: &str) -> Vec<(String, String)> {
    let Some(line) = header_line(text) else {
        return Vec::new();
    };
    line.trim_start_matches("//")
        .split_whitespace()
        .filter_map(|arg| arg.strip_prefix("-D"))
        .filter_map(|def| {
            let (name, value) = def.split_once('=').unwrap_or((def, "1"));
            let ident = !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            ident.then(|| (name.to_string(), value.to_string()))
        })
        .collect()
}

/// `X[,Y[,Z]]` with every component ≥ 1; missing components are 1.
pub fn parse_dim3(s: &str) -> Result<Size3, String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("`{s}` is not a size: expected X, X,Y or X,Y,Z"));
    }
    let mut d = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        d[i] = p
            .parse::<u32>()
            .ok()
            .filter(|v| *v >= 1)
            .ok_or_else(|| format!("`{s}` is not a size: `{p}` must be a positive integer"))?;
    }
    Ok(d)
}

/// CUDA's limits on a block (every compute capability since 2.0): at most 1024 threads in
/// all, 1024 in x and y, 64 in z.
pub const MAX_BLOCK: Size3 = [1024, 1024, 64];
/// At most this many threads in one block.
pub const MAX_BLOCK_THREADS: u64 = 1024;
/// CUDA's limits on a grid: x < 2^31, y and z ≤ 65535 blocks.
pub const MAX_GRID: Size3 = [(1 << 31) - 1, 65535, 65535];

/// A block size (`--block-dim`, `--blockDim=`): [`parse_dim3`] within CUDA's limits,
/// since no launch of a larger block runs (a kernel checked for one would be checked for
/// nothing that happens).
pub fn parse_block_dim(s: &str) -> Result<Size3, String> {
    let d = parse_dim3(s)?;
    within(s, d, MAX_BLOCK, ("block", "threads"))?;
    let total: u64 = d.iter().map(|&v| u64::from(v)).product();
    if total > MAX_BLOCK_THREADS {
        return Err(format!(
            "`{s}` is not a block size: {total} threads, but CUDA allows at most {MAX_BLOCK_THREADS} threads per block"
        ));
    }
    Ok(d)
}

/// A grid size (`--grid-dim`, `--gridDim=`): [`parse_dim3`] within CUDA's limits.
pub fn parse_grid_dim(s: &str) -> Result<Size3, String> {
    let d = parse_dim3(s)?;
    within(s, d, MAX_GRID, ("grid", "blocks"))?;
    Ok(d)
}

/// Each component of `d` at most its limit in `max`; `(what, unit)` name the size in
/// the message (`block`, `threads`).
fn within(s: &str, d: Size3, max: Size3, (what, unit): (&str, &str)) -> Result<(), String> {
    for ((v, m), axis) in d.iter().zip(max).zip(["x", "y", "z"]) {
        if *v > m {
            return Err(format!(
                "`{s}` is not a {what} size: {v} {unit} in {axis}, but CUDA allows at most {m} in {axis}"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_forms() {
        let sizes = |t: &str| header_launch(t).map(|l| (l.block_dim(), l.grid_dim(), l.warp_size));
        assert_eq!(
            sizes("//--blockDim=256 --gridDim=64\nkernel"),
            Ok((Some([256, 1, 1]), Some([64, 1, 1]), None))
        );
        assert_eq!(
            sizes("// x\n//--gridDim=[4,2] --blockDim=[32,32,1] --warp-sync=32\n"),
            Ok((Some([32, 32, 1]), Some([4, 2, 1]), Some(32)))
        );
        assert_eq!(header_launch("kernel k() {}"), Ok(Launch::default()));
        assert_eq!(
            header_launch("//--blockDim=64\n").unwrap().source(),
            Some(Origin::Header)
        );
        assert_eq!(sizes("//--blockDim=64\n"), Ok((Some([64, 1, 1]), None, None)));
        assert!(header_launch("//--warp-sync=0\n").is_err());
        assert!(header_only_intra_group(
            "//--blockDim=64 --gridDim=4 --only-intra-group\n"
        ));
        assert!(!header_only_intra_group(
            "//--blockDim=64 --gridDim=4\n// --only-intra-group\n"
        ));
        assert!(header_launch("//--blockDim=0").is_err());
    }

    #[test]
    fn header_defines_are_object_like_macros() {
        assert_eq!(
            header_defines("//pass\n//--blockDim=64 --gridDim=1 -DWIDTH=64 -DUSE_SHARED -D=3 -D1X\n"),
            vec![
                ("WIDTH".to_string(), "64".to_string()),
                ("USE_SHARED".to_string(), "1".to_string())
            ]
        );
        assert!(header_defines("// -DX=1\n").is_empty());
    }

    #[test]
    fn dims() {
        assert_eq!(parse_dim3("8"), Ok([8, 1, 1]));
        assert_eq!(parse_dim3("8,4"), Ok([8, 4, 1]));
        assert!(parse_dim3("8,4,2,1").is_err());
        assert!(parse_dim3("x").is_err());
    }

    #[test]
    fn cuda_limits() {
        assert_eq!(parse_block_dim("1024"), Ok([1024, 1, 1]));
        assert_eq!(parse_block_dim("32,32"), Ok([32, 32, 1]));
        assert_eq!(parse_block_dim("16,1,64"), Ok([16, 1, 64]));
        assert!(parse_block_dim("2000").is_err());
        assert!(parse_block_dim("1,1,65").is_err());
        assert!(parse_block_dim("64,32").is_err());
        assert_eq!(
            parse_grid_dim("2147483647,65535,65535"),
            Ok([(1 << 31) - 1, 65535, 65535])
        );
        assert!(parse_grid_dim("1,65536").is_err());
        assert!(parse_grid_dim("2147483648").is_err());
        assert!(header_launch("//--blockDim=2000\n").is_err());
    }

    #[test]
    fn header_with_a_space() {
        let block = |t: &str| header_launch(t).map(|l| l.block_dim());
        assert_eq!(block("// --blockDim=64 --gridDim=4\n"), Ok(Some([64, 1, 1])));
        assert_eq!(block("// -- helpers --\n//--blockDim=32\n"), Ok(Some([32, 1, 1])));
        assert_eq!(header_line_number("// x\n// --gridDim=2 --blockDim=8\n"), Some(2));
        assert_eq!(header_line_number("// x\n"), None);
    }
}
