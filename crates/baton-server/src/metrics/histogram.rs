//! A histogram kept by the scrape-time collectors, rendered in the exposition format.

use super::exposition::Exposition;

/// Observations counted into fixed buckets, with their sum and count.
#[derive(Debug, Clone)]
pub(crate) struct Histogram {
    /// The upper bounds of the buckets, ascending; `+Inf` is implied.
    bounds: &'static [f64],
    /// Observations per bucket (not cumulative), one per bound.
    counts: Vec<u64>,
    sum: f64,
    count: u64,
}

impl Histogram {
    /// An empty histogram over `bounds`.
    pub fn new(bounds: &'static [f64]) -> Self {
        Histogram { bounds, counts: vec![0; bounds.len()], sum: 0.0, count: 0 }
    }

    /// Counts one observation.
    pub fn observe(&mut self, value: f64) {
        if let Some(bucket) = self.bounds.iter().position(|bound| value <= *bound) {
            self.counts[bucket] += 1;
        }
        self.sum += value;
        self.count += 1;
    }

    /// Writes the `_bucket`, `_sum` and `_count` samples of family `name` with `labels`.
    pub fn render(&self, out: &mut Exposition, name: &str, labels: &[(&str, &str)]) {
        let bucket = format!("{name}_bucket");
        let mut cumulative = 0;
        for (bound, count) in self.bounds.iter().zip(&self.counts) {
            cumulative += count;
            let le = bound.to_string();
            out.sample(&bucket, &[labels, &[("le", le.as_str())]].concat(), cumulative as f64);
        }
        out.sample(&bucket, &[labels, &[("le", "+Inf")]].concat(), self.count as f64);
        out.sample(&format!("{name}_sum"), labels, self.sum);
        out.sample(&format!("{name}_count"), labels, self.count as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::exposition::Kind;

    #[test]
    fn buckets_are_cumulative_and_end_at_the_count() {
        let mut histogram = Histogram::new(&[1.0, 5.0]);
        for value in [0.5, 4.5, 4.5, 223.0] {
            histogram.observe(value);
        }
        let mut out = Exposition::default();
        out.family("baton_x_seconds", Kind::Histogram, "An example.");
        histogram.render(&mut out, "baton_x_seconds", &[("lease", "l")]);
        assert_eq!(
            out.finish(),
            "# HELP baton_x_seconds An example.\n# TYPE baton_x_seconds histogram\n\
             baton_x_seconds_bucket{lease=\"l\",le=\"1\"} 1\n\
             baton_x_seconds_bucket{lease=\"l\",le=\"5\"} 3\n\
             baton_x_seconds_bucket{lease=\"l\",le=\"+Inf\"} 4\n\
             baton_x_seconds_sum{lease=\"l\"} 232.5\n\
             baton_x_seconds_count{lease=\"l\"} 4\n"
        );
    }
}
