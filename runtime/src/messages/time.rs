//! RFC 3339 timestamps without a date-time dependency: validation, conversion to Unix
//! milliseconds (for ordering across UTC offsets) and formatting of "now".

/// Parses an RFC 3339 timestamp (`2026-11-13T22:36:05+08:00`, `2026-11-13T14:36:05.250Z`)
/// into milliseconds since the Unix epoch. The date-time separator may be `T`, `t` or a
/// space; the offset `Z`, `z` or `±HH:MM`. Fractions beyond milliseconds are truncated.
pub fn parse_rfc3339(s: &str) -> Result<i64, String> {
    let b = s.as_bytes();
    let bad = |why: &str| Err(format!("`{s}` is not an RFC 3339 timestamp ({why})"));
    if b.len() < 20 {
        return bad("too short; expected e.g. 2026-11-13T22:36:05+08:00");
    }
    let num = |from: usize, len: usize| -> Option<i64> {
        let part = b.get(from..from + len)?;
        if !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        Some(
            part.iter()
                .fold(0i64, |acc, d| acc * 10 + i64::from(d - b'0')),
        )
    };
    let (Some(year), Some(month), Some(day)) = (num(0, 4), num(5, 2), num(8, 2)) else {
        return bad("the date must be YYYY-MM-DD");
    };
    if b[4] != b'-' || b[7] != b'-' {
        return bad("the date must be YYYY-MM-DD");
    }
    if !matches!(b[10], b'T' | b't' | b' ') {
        return bad("expected `T` between date and time");
    }
    let (Some(hour), Some(minute), Some(second)) = (num(11, 2), num(14, 2), num(17, 2)) else {
        return bad("the time must be HH:MM:SS");
    };
    if b[13] != b':' || b[16] != b':' {
        return bad("the time must be HH:MM:SS");
    }
    if !(1..=12).contains(&month) {
        return bad("month out of range");
    }
    if day < 1 || day > days_in_month(year, month) {
        return bad("day out of range");
    }
    if hour > 23 || minute > 59 || second > 60 {
        return bad("time out of range");
    }
    let mut i = 19;
    let mut millis = 0i64;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            if i - start < 3 {
                millis = millis * 10 + i64::from(b[i] - b'0');
            }
            i += 1;
        }
        if i == start {
            return bad("empty fraction of a second");
        }
        for _ in (i - start)..3 {
            millis *= 10;
        }
    }
    let offset_minutes = match b.get(i) {
        Some(b'Z' | b'z') if i + 1 == b.len() => 0,
        Some(sign @ (b'+' | b'-')) if i + 6 == b.len() && b[i + 3] == b':' => {
            let (Some(oh), Some(om)) = (num(i + 1, 2), num(i + 4, 2)) else {
                return bad("the offset must be ±HH:MM");
            };
            if oh > 23 || om > 59 {
                return bad("offset out of range");
            }
            let m = oh * 60 + om;
            if *sign == b'-' { -m } else { m }
        }
        _ => return bad("expected an offset `Z` or ±HH:MM at the end"),
    };
    let days = days_from_civil(year, month, day);
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset_minutes * 60;
    Ok(seconds * 1000 + millis)
}

/// Formats Unix milliseconds as `YYYY-MM-DDTHH:MM:SSZ` (UTC, whole seconds).
pub fn format_rfc3339_utc(unix_ms: i64) -> String {
    let secs = unix_ms.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The current time as an RFC 3339 UTC timestamp.
pub fn now_rfc3339() -> String {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0);
    format_rfc3339_utc(ms)
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}
