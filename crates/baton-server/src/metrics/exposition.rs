//! Writing the Prometheus text exposition format.

use std::fmt::Write;

/// Text in the Prometheus exposition format, one metric family after another.
#[derive(Debug, Default)]
pub(crate) struct Exposition {
    text: String,
}

/// A metric family's type.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Kind {
    Gauge,
    Counter,
    Histogram,
}

impl Exposition {
    /// Starts a family: its help and type lines.
    pub fn family(&mut self, name: &str, kind: Kind, help: &str) {
        let kind = match kind {
            Kind::Gauge => "gauge",
            Kind::Counter => "counter",
            Kind::Histogram => "histogram",
        };
        let _ = writeln!(self.text, "# HELP {name} {help}");
        let _ = writeln!(self.text, "# TYPE {name} {kind}");
    }

    /// One sample of the current family.
    pub fn sample(&mut self, name: &str, labels: &[(&str, &str)], value: f64) {
        self.text.push_str(name);
        if !labels.is_empty() {
            self.text.push('{');
            for (i, (key, value)) in labels.iter().enumerate() {
                if i > 0 {
                    self.text.push(',');
                }
                let _ = write!(self.text, "{key}=\"{}\"", escape(value));
            }
            self.text.push('}');
        }
        let _ = writeln!(self.text, " {value}");
    }

    /// The text written.
    pub fn finish(self) -> String {
        self.text
    }
}

/// A label value with backslashes, double quotes and newlines escaped.
fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_escape_label_values() {
        let mut out = Exposition::default();
        out.family("baton_x", Kind::Gauge, "An example.");
        out.sample("baton_x", &[("lease", "a\"b\\c\nd"), ("holder", "h")], 1.5);
        out.sample("baton_x", &[], 2.0);
        assert_eq!(
            out.finish(),
            "# HELP baton_x An example.\n# TYPE baton_x gauge\n\
             baton_x{lease=\"a\\\"b\\\\c\\nd\",holder=\"h\"} 1.5\nbaton_x 2\n"
        );
    }
}
