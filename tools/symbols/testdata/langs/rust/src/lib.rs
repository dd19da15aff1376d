//! Parsing of settings; see parse_line.

pub mod config;

pub struct Setting<'a> {
    pub key: &'a str,
    pub value: &'a str,
}

impl<'a> Setting<'a> {
    pub fn new(key: &'a str, value: &'a str) -> Self {
        Setting { key, value }
    }

    pub fn is_empty(&self) -> bool {
        self.value.is_empty()
    }
}

pub fn parse_line(line: &str) -> Option<Setting<'_>> {
    let (k, v) = line.split_once('=')?;
    Some(Setting::new(k.trim(), v.trim()))
}

macro_rules! setting {
    ($k:expr, $v:expr) => {
        Setting::new($k, $v)
    };
}
