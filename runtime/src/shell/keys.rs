//! Named keys (`enter`, `ctrl-c`, `up`, …) and the bytes a terminal sends for them.

/// The key names accepted, for error messages.
pub const KEY_NAMES: &str = "enter, tab, esc, backspace, delete, insert, space, up, down, left, \
     right, home, end, pageup, pagedown, f1–f12, ctrl-a … ctrl-z, ctrl-[, ctrl-\\, ctrl-], \
     ctrl-^, ctrl-_, ctrl-@, ctrl-space";

/// Parses a key name: case-insensitive; `ctrl-c`, `ctrl+c`, `c-c`, `^c` are the same key.
/// Returns the bytes a terminal sends for it.
pub fn parse_key(name: &str) -> Option<Vec<u8>> {
    let lower = name.trim().to_ascii_lowercase();
    let ctrl = ["ctrl-", "ctrl+", "control-", "c-", "^"]
        .iter()
        .find_map(|p| lower.strip_prefix(p));
    if let Some(rest) = ctrl {
        let b = match rest {
            "space" | "@" | "2" => 0,
            "[" | "3" => 0x1b,
            "\\" | "4" => 0x1c,
            "]" | "5" => 0x1d,
            "^" | "6" => 0x1e,
            "_" | "/" | "7" => 0x1f,
            "?" | "8" => 0x7f,
            r if r.len() == 1 => {
                let c = r.as_bytes()[0];
                if c.is_ascii_lowercase() {
                    c & 0x1f
                } else {
                    return None;
                }
            }
            _ => return None,
        };
        return Some(vec![b]);
    }
    let seq: &[u8] = match lower.as_str() {
        "enter" | "return" | "cr" => b"\r",
        "newline" | "lf" | "nl" => b"\n",
        "tab" => b"\t",
        "esc" | "escape" => b"\x1b",
        "backspace" | "bs" => b"\x7f",
        "delete" | "del" => b"\x1b[3~",
        "insert" | "ins" => b"\x1b[2~",
        "space" => b" ",
        "up" => b"\x1b[A",
        "down" => b"\x1b[B",
        "right" => b"\x1b[C",
        "left" => b"\x1b[D",
        "home" => b"\x1b[H",
        "end" => b"\x1b[F",
        "pageup" | "page-up" | "pgup" => b"\x1b[5~",
        "pagedown" | "page-down" | "pgdn" => b"\x1b[6~",
        "f1" => b"\x1bOP",
        "f2" => b"\x1bOQ",
        "f3" => b"\x1bOR",
        "f4" => b"\x1bOS",
        "f5" => b"\x1b[15~",
        "f6" => b"\x1b[17~",
        "f7" => b"\x1b[18~",
        "f8" => b"\x1b[19~",
        "f9" => b"\x1b[20~",
        "f10" => b"\x1b[21~",
        "f11" => b"\x1b[23~",
        "f12" => b"\x1b[24~",
        _ => return None,
    };
    Some(seq.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_and_named_keys() {
        assert_eq!(parse_key("ctrl-c"), Some(vec![3]));
        assert_eq!(parse_key("C-D"), Some(vec![4]));
        assert_eq!(parse_key("^z"), Some(vec![0x1a]));
        assert_eq!(parse_key("Ctrl+L"), Some(vec![0x0c]));
        assert_eq!(parse_key("enter"), Some(b"\r".to_vec()));
        assert_eq!(parse_key("up"), Some(b"\x1b[A".to_vec()));
        assert_eq!(parse_key("pagedown"), Some(b"\x1b[6~".to_vec()));
        assert_eq!(parse_key("hyper-x"), None);
        assert_eq!(parse_key("ctrl-1"), None);
    }
}
