use crate::{parse_line, Setting};

pub const MAX_LINES: usize = 1000;

pub fn parse_all(text: &str) -> Vec<Setting<'_>> {
    let raw = r#"parse_line is not called here"#;
    let _ = raw;
    text.lines().take(MAX_LINES).filter_map(parse_line).collect()
}
