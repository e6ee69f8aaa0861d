//! What a run on Lambda will cost, told before it starts: the selection's
//! invocations (as `plan_batches` cuts it), the function time its bytes take
//! at the measured rate, and the price of both. An estimate from public
//! prices and this project's measurements (docs/lambda.md), not a bill:
//! cold starts and the function's real speed on Graviton are not in it.

use super::batch::plan_batches;
use super::deploy::DEFAULT_MEMORY_MB;

/// Function time per compressed MB of busy segments: ~30 ms to inflate,
/// decode and analyze one ~1 MB segment (the CLI on one core, measured) and
/// ~50 ms to download it within the region (assumed).
pub const MS_PER_MB: f64 = 80.0;

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
        let function_seconds = bytes as f64 / 1e6 * MS_PER_MB / 1e3;
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
        assert_eq!(e.function_seconds, 800.0);
        assert!((0.025..0.03).contains(&e.usd), "{}", e.usd);
        assert_eq!(
            e.to_string(),
            "304 invocations, about 13m20s of function time at 2048 MB: about $0.03 at us-east-1 arm64 prices"
        );
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
