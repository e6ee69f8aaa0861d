//! What a run on Lambda will cost, told before it starts: the selection's
//! invocations (as `plan_batches` cuts it), the function time its bytes take
//! at the measured rate, and the price of both. An estimate from public
//! prices and this project's measurements (docs/lambda.md), not a bill:
//! cold starts and the function's real speed on Graviton are not in it.

use super::batch::plan_batches;
use super::deploy::DEFAULT_MEMORY_MB;

/// CPU time per compressed MB of busy segments, downloads included. The
/// function downloads ahead of its analysis (`d9lens_http`'s pipeline), so
/// a download's latency hides behind other segments' analysis and only its
/// CPU counts. Measured: the CLI, which runs the same pipeline, from the
/// local S3 server, its user and system time over the bytes
/// (docs/lambda.md, "A fleet-day on paper").
pub const CPU_MS_PER_MB: f64 = 32.0;

/// Lambda gives a function CPU in proportion to its memory: one vCPU's
/// worth at this many MB. The function analyzes on every vCPU it sees, so
/// this share, not their count, bounds it.
pub const MB_PER_VCPU: f64 = 1769.0;

/// AWS's public us-east-1 prices for arm64 Lambda and S3 GETs, USD.
pub const USD_PER_GB_SECOND: f64 = 0.000_013_333_4;
pub const USD_PER_INVOCATION: f64 = 0.20 / 1_000_000.0;
pub const USD_PER_GET: f64 = 0.000_4 / 1_000.0;

/// The estimate for one selection.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CostEstimate {
    pub invocations: usize,
    /// Summed over every invocation, seconds.
    pub function_seconds: f64,
    pub memory_mb: u32,
    pub usd: f64,
}

impl CostEstimate {
    /// `objects` (key, compressed size) in batches of at most `batch_bytes`,
    /// on a function of `memory_mb` (None: `deploy-lambda`'s default).
    pub fn of<'a>(objects: impl IntoIterator<Item = (&'a str, u64)>, batch_bytes: u64, memory_mb: Option<u32>) -> Self {
        let objects: Vec<(&str, u64)> = objects.into_iter().collect();
        let invocations = plan_batches(objects.iter().copied(), batch_bytes).len();
        let bytes: u64 = objects.iter().map(|&(_, size)| size).sum();
        let memory_mb = memory_mb.unwrap_or(DEFAULT_MEMORY_MB);
        let vcpus = f64::from(memory_mb) / MB_PER_VCPU;
        let function_seconds = bytes as f64 / 1e6 * CPU_MS_PER_MB / 1e3 / vcpus;
        let gb_seconds = function_seconds * f64::from(memory_mb) / 1024.0;
        let usd = gb_seconds * USD_PER_GB_SECOND
            + invocations as f64 * USD_PER_INVOCATION
            + objects.len() as f64 * USD_PER_GET;
        CostEstimate {
            invocations,
            function_seconds,
            memory_mb,
            usd,
        }
    }
}

impl std::fmt::Display for CostEstimate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} invocation{}, about {} of function time at {} MB: about {} at us-east-1 arm64 prices",
            self.invocations,
            if self.invocations == 1 { "" } else { "s" },
            crate::fmt::secs(self.function_seconds.ceil() as u64),
            self.memory_mb,
            usd(self.usd)
        )
    }
}

/// Dollars with two significant digits below a cent ("$0.00052"), cents above.
fn usd(amount: f64) -> String {
    if amount >= 0.01 {
        return format!("${amount:.2}");
    }
    if amount <= 0.0 {
        return "$0".into();
    }
    let digits = (1 - amount.log10().floor() as i32).max(2) as usize;
    format!("${amount:.digits$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fleet_day_costs_what_the_docs_say() {
        // docs/lambda.md: 10,000 busy segments of ~1 MB in 32 MB batches.
        let keys: Vec<String> = (0..10_000).map(|i| format!("k{i}")).collect();
        let e = CostEstimate::of(keys.iter().map(|k| (k.as_str(), 1_000_000)), 32 << 20, None);
        assert_eq!(e.invocations, 304);
        assert!((276.0..277.0).contains(&e.function_seconds), "{}", e.function_seconds);
        assert!((0.011..0.012).contains(&e.usd), "{}", e.usd);
        assert_eq!(
            e.to_string(),
            "304 invocations, about 4m37s of function time at 2048 MB: about $0.01 at us-east-1 arm64 prices"
        );
    }

    #[test]
    fn more_memory_is_more_cpu_so_shorter_for_the_same_compute_price() {
        let objects = [("a", 32_000_000)];
        let small = CostEstimate::of(objects, 32 << 20, Some(1769));
        let big = CostEstimate::of(objects, 32 << 20, Some(1769 * 4));
        assert!((small.function_seconds - 32.0 * 32.0 / 1e3).abs() < 1e-9);
        assert!((big.function_seconds * 4.0 - small.function_seconds).abs() < 1e-9);
        assert!((big.usd - small.usd).abs() < 1e-12, "{} vs {}", big.usd, small.usd);
    }

    #[test]
    fn small_amounts_keep_two_significant_digits() {
        assert_eq!(usd(0.000_523), "$0.00052");
        assert_eq!(usd(0.0042), "$0.0042");
        assert_eq!(usd(0.5), "$0.50");
        assert_eq!(usd(0.0), "$0");
        let one = CostEstimate::of([("a", 2_000_000)], 32 << 20, Some(1024));
        assert_eq!(one.invocations, 1);
        assert!(
            one.to_string()
                .starts_with("1 invocation, about 1s of function time at 1024 MB")
        );
    }
}
