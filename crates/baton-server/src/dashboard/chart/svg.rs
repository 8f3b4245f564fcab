//! A small writer of inline SVG: rectangles, lines, circles and text, each with a CSS class
//! and an optional hover title, every text escaped.

use std::fmt::Write;

/// An area of a picture, in its user units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Area {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

/// Where a text stands relative to its point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Anchor {
    Start,
    Middle,
    End,
}

impl Anchor {
    fn as_str(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// A picture being written, `width` by `height` user units.
pub(crate) struct Svg {
    width: f64,
    height: f64,
    class: &'static str,
    label: String,
    stretch: bool,
    body: String,
}

impl Svg {
    /// An empty picture with a CSS class and a label, which screen readers read and a hover
    /// shows.
    pub fn new(width: f64, height: f64, class: &'static str, label: impl Into<String>) -> Self {
        Svg { width, height, class, label: label.into(), stretch: false, body: String::new() }
    }

    /// Lets the picture stretch to any box, losing its proportions, as a bar may.
    pub fn stretch(mut self) -> Self {
        self.stretch = true;
        self
    }

    /// A rectangle coloured by its class, or by `fill` when given; `title` shows on hover.
    pub fn rect(&mut self, area: Area, class: &str, fill: Option<&str>, title: &str) {
        let fill = fill.map(|fill| format!(r#" fill="{}""#, escape(fill))).unwrap_or_default();
        let open = format!(
            r#"<rect x="{}" y="{}" width="{}" height="{}" class="{}"{fill}"#,
            num(area.x),
            num(area.y),
            num(area.width.max(0.0)),
            num(area.height.max(0.0)),
            escape(class),
        );
        self.element("rect", &open, title);
    }

    /// A straight line.
    pub fn line(&mut self, from: (f64, f64), to: (f64, f64), class: &str) {
        let _ = write!(
            self.body,
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" class="{}"/>"#,
            num(from.0),
            num(from.1),
            num(to.0),
            num(to.1),
            escape(class)
        );
    }

    /// A dot; `title` shows on hover.
    pub fn circle(&mut self, center: (f64, f64), radius: f64, class: &str, title: &str) {
        let open = format!(
            r#"<circle cx="{}" cy="{}" r="{}" class="{}""#,
            num(center.0),
            num(center.1),
            num(radius),
            escape(class)
        );
        self.element("circle", &open, title);
    }

    /// A line of text at `at`, its baseline there.
    pub fn text(&mut self, at: (f64, f64), anchor: Anchor, class: &str, text: &str) {
        let _ = write!(
            self.body,
            r#"<text x="{}" y="{}" text-anchor="{}" class="{}">{}</text>"#,
            num(at.0),
            num(at.1),
            anchor.as_str(),
            escape(class),
            escape(text)
        );
    }

    /// The picture as an `<svg>` element, ready to be placed in a page.
    pub fn finish(self) -> String {
        let (width, height) = (num(self.width), num(self.height));
        let ratio = if self.stretch { r#" preserveAspectRatio="none""# } else { "" };
        format!(
            r#"<svg class="chart {class}" viewBox="0 0 {width} {height}" width="{width}" height="{height}"{ratio} role="img" aria-label="{label}"><title>{label}</title>{body}</svg>"#,
            class = escape(self.class),
            label = escape(&self.label),
            body = self.body,
        )
    }

    /// Writes an element opened by `open` (without its closing `>`), with `title` inside.
    fn element(&mut self, name: &str, open: &str, title: &str) {
        if title.is_empty() {
            let _ = write!(self.body, "{open}/>");
        } else {
            let _ = write!(self.body, "{open}><title>{}</title></{name}>", escape(title));
        }
    }
}

/// A number as SVG writes it: at most one decimal, without a trailing `.0`; 0 for a number
/// that is not finite.
pub(super) fn num(value: f64) -> String {
    if !value.is_finite() {
        return "0".to_string();
    }
    let text = format!("{:.1}", value);
    match text.strip_suffix(".0") {
        Some("-0") => "0".to_string(),
        Some(whole) => whole.to_string(),
        None => text,
    }
}

/// Text made safe for an attribute or an element's content.
fn escape(text: &str) -> String {
    let mut safe = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => safe.push_str("&amp;"),
            '<' => safe.push_str("&lt;"),
            '>' => safe.push_str("&gt;"),
            '"' => safe.push_str("&quot;"),
            '\'' => safe.push_str("&#39;"),
            _ => safe.push(c),
        }
    }
    safe
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_have_at_most_one_decimal() {
        assert_eq!(num(12.0), "12");
        assert_eq!(num(12.34), "12.3");
        assert_eq!(num(-0.01), "0");
        assert_eq!(num(f64::NAN), "0");
        assert_eq!(num(f64::INFINITY), "0");
    }

    #[test]
    fn text_and_titles_are_escaped() {
        let mut svg = Svg::new(10.0, 10.0, "test", "a <b> & \"c\"");
        svg.text((1.0, 2.0), Anchor::End, "label", "<script>");
        let area = Area { x: 0.0, y: 0.0, width: 5.0, height: -1.0 };
        svg.rect(area, "bar", Some("hsl(1, 2%, 3%)"), "it's");
        let out = svg.finish();
        assert!(out.contains(r#"aria-label="a &lt;b&gt; &amp; &quot;c&quot;""#), "{out}");
        assert!(out.contains(r#"text-anchor="end" class="label">&lt;script&gt;</text>"#), "{out}");
        assert!(
            out.contains(
                r#"<rect x="0" y="0" width="5" height="0" class="bar" fill="hsl(1, 2%, 3%)"><title>it&#39;s</title></rect>"#
            ),
            "{out}"
        );
        assert!(!out.contains("<script>"));
    }

    #[test]
    fn an_element_without_a_title_closes_itself() {
        let mut svg = Svg::new(10.0, 10.0, "test", "dots");
        svg.circle((1.0, 2.0), 3.0, "dot", "");
        svg.line((0.0, 0.0), (10.0, 10.5), "grid");
        assert!(svg.finish().ends_with(
            r#"<circle cx="1" cy="2" r="3" class="dot"/><line x1="0" y1="0" x2="10" y2="10.5" class="grid"/></svg>"#
        ));
    }
}
