//! The stdio framing in front of rmcp: newline-delimited JSON-RPC, checked line by line
//! before rmcp sees it, so that bad input gets an answer instead of being dropped silently
//! and no line is held in memory beyond [`super::McpLimits::max_message_bytes`].
//!
//! Per line from the client:
//! - longer than the limit: skipped without being kept (read and discarded up to its
//!   newline), answered `-32600` with `id: null` naming the limit;
//! - not UTF-8, or not JSON (including JSON nested deeper than serde_json's limit of 128):
//!   `-32700` (parse error) with `id: null`;
//! - JSON but not a JSON-RPC message rmcp understands: `-32600` (invalid request) with the
//!   line's `id` when it has one;
//! - blank: ignored; anything else goes to rmcp unchanged: unknown methods are answered
//!   `-32601` there, and a 2026-07-28 request's `_meta` is checked there (see the module
//!   docs of [`super`], "Protocol revisions").
//!
//! Answers and rmcp's own output are written whole lines at a time to one writer, so they
//! never interleave.

use rmcp::model::ClientJsonRpcMessage;
use tokio::io::AsyncBufRead;
use tokio::io::AsyncBufReadExt;
use tokio::io::AsyncRead;
use tokio::io::AsyncWrite;
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;

/// One line of input, bounded.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// The bytes before the newline (or before end of input).
    Text(Vec<u8>),
    /// A line of this many bytes, over the limit; nothing of it was kept.
    TooLong(usize),
    /// End of input.
    End,
}

/// Read one line of at most `max` bytes; a longer one is consumed to its newline and
/// reported by length only.
pub async fn read_bounded_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    max: usize,
) -> std::io::Result<Line> {
    let mut line = Vec::new();
    let mut length = 0usize;
    let mut overflowed = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(match (length, overflowed) {
                (0, _) => Line::End,
                (n, true) => Line::TooLong(n),
                (_, false) => Line::Text(line),
            });
        }
        let (chunk, found_newline) = match available.iter().position(|b| *b == b'\n') {
            Some(i) => (&available[..i], true),
            None => (available, false),
        };
        length += chunk.len();
        if !overflowed {
            if length > max {
                overflowed = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let consumed = chunk.len() + usize::from(found_newline);
        reader.consume(consumed);
        if found_newline {
            return Ok(if overflowed {
                Line::TooLong(length)
            } else {
                Line::Text(line)
            });
        }
    }
}

/// The JSON-RPC error line answering a bad input line, or `None` when rmcp should get it.
pub fn refusal(line: &Line, max: usize) -> Option<String> {
    let error = |id: serde_json::Value, code: i64, message: String| {
        serde_json::json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {"code": code, "message": message},
        })
        .to_string()
    };
    match line {
        Line::End => None,
        Line::TooLong(n) => Some(error(
            serde_json::Value::Null,
            -32600,
            format!(
                "message of {n} bytes is larger than this server's limit of {max} bytes; it was not read"
            ),
        )),
        Line::Text(bytes) => {
            let text = match std::str::from_utf8(bytes) {
                Ok(text) => text,
                Err(e) => {
                    return Some(error(
                        serde_json::Value::Null,
                        -32700,
                        format!("parse error: the message is not UTF-8 ({e})"),
                    ));
                }
            };
            if text.trim().is_empty() {
                return None;
            }
            let value: serde_json::Value = match serde_json::from_str(text) {
                Ok(value) => value,
                Err(e) => {
                    return Some(error(
                        serde_json::Value::Null,
                        -32700,
                        format!("parse error: {e}"),
                    ));
                }
            };
            match serde_json::from_value::<ClientJsonRpcMessage>(value.clone()) {
                Ok(_) => None,
                Err(e) => {
                    let id = value
                        .get("id")
                        .filter(|id| id.is_string() || id.is_number())
                        .cloned()
                        .unwrap_or(serde_json::Value::Null);
                    Some(error(
                        id,
                        -32600,
                        format!("invalid request: not a JSON-RPC message this server takes ({e})"),
                    ))
                }
            }
        }
    }
}

/// Serve `session` over `input` / `output` with the checks above until the input ends or
/// the session stops. Returns rmcp's reason for stopping.
pub async fn serve<R, W>(
    session: super::McpSession,
    input: R,
    output: W,
    max: usize,
    stop: impl std::future::Future<Output = &'static str>,
) -> anyhow::Result<String>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    use rmcp::ServiceExt;

    let (rmcp_end, our_end) = tokio::io::duplex(1 << 16);
    let (rmcp_read, rmcp_write) = tokio::io::split(rmcp_end);
    let (from_rmcp, mut to_rmcp) = tokio::io::split(our_end);
    let (refusals, mut refused) = mpsc::unbounded_channel::<String>();

    let reader = tokio::spawn(async move {
        let mut input = tokio::io::BufReader::new(input);
        loop {
            let line = match read_bounded_line(&mut input, max).await {
                Ok(Line::End) | Err(_) => break,
                Ok(line) => line,
            };
            if let Some(answer) = refusal(&line, max) {
                if refusals.send(answer).is_err() {
                    break;
                }
                continue;
            }
            let Line::Text(mut bytes) = line else {
                continue;
            };
            if bytes.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            bytes.push(b'\n');
            if to_rmcp.write_all(&bytes).await.is_err() {
                break;
            }
        }
        // End of input: rmcp sees its input close and ends the session.
        let _ = to_rmcp.shutdown().await;
    });
    let writer = tokio::spawn(async move {
        let mut output = output;
        let mut from_rmcp = tokio::io::BufReader::new(from_rmcp).lines();
        let (mut rmcp_open, mut refusals_open) = (true, true);
        loop {
            let line = tokio::select! {
                line = from_rmcp.next_line(), if rmcp_open => match line {
                    Ok(Some(line)) => line,
                    _ => { rmcp_open = false; continue; }
                },
                answer = refused.recv(), if refusals_open => match answer {
                    Some(answer) => answer,
                    None => { refusals_open = false; continue; }
                },
                else => break,
            };
            let written = async {
                output.write_all(line.as_bytes()).await?;
                output.write_all(b"\n").await?;
                output.flush().await
            };
            if written.await.is_err() {
                break;
            }
        }
    });
    let running = session
        .serve((rmcp_read, rmcp_write))
        .await
        .map_err(|e| anyhow::anyhow!("MCP handshake on stdio failed: {e}"))?;
    let cancel = running.cancellation_token();
    let reason = tokio::select! {
        reason = running.waiting() => {
            let reason = reason.map_err(|e| anyhow::anyhow!("MCP service task failed: {e}"))?;
            format!("{reason:?}")
        }
        signal = stop => {
            cancel.cancel();
            signal.to_owned()
        }
    };
    // rmcp's output half is closed now; let the writer pass on what rmcp wrote last.
    reader.abort();
    if tokio::time::timeout(std::time::Duration::from_secs(2), writer)
        .await
        .is_err()
    {
        eprintln!("toolsurface serve: stdout did not take the last messages within 2 s");
    }
    Ok(reason)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    async fn lines(input: &[u8], max: usize) -> Vec<Line> {
        let mut reader = tokio::io::BufReader::with_capacity(7, input);
        let mut out = Vec::new();
        loop {
            match read_bounded_line(&mut reader, max).await.unwrap() {
                Line::End => return out,
                line => out.push(line),
            }
        }
    }

    #[tokio::test]
    async fn lines_over_the_limit_are_measured_not_kept() {
        let got = lines(b"short\n0123456789abcdef\nok\nlast-no-newline", 10).await;
        assert_eq!(
            got,
            vec![
                Line::Text(b"short".to_vec()),
                Line::TooLong(16),
                Line::Text(b"ok".to_vec()),
                Line::TooLong(15),
            ]
        );
        assert_eq!(
            lines(b"exactly-10\n", 10).await,
            vec![Line::Text(b"exactly-10".to_vec())]
        );
    }

    #[test]
    fn bad_lines_get_json_rpc_errors() {
        let answer = |bytes: &[u8]| -> serde_json::Value {
            serde_json::from_str(&refusal(&Line::Text(bytes.to_vec()), 100).unwrap()).unwrap()
        };
        assert_eq!(answer(b"{\"jsonrpc\":")["error"]["code"], -32700);
        assert_eq!(answer(b"{\"a\":\"\xff\"}")["error"]["code"], -32700);
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(answer(deep.as_bytes())["error"]["code"], -32700);
        let invalid = answer(br#"{"jsonrpc":"2.0","id":7,"nothing":true}"#);
        assert_eq!(invalid["error"]["code"], -32600);
        assert_eq!(invalid["id"], 7);
        let too_long: serde_json::Value =
            serde_json::from_str(&refusal(&Line::TooLong(5_000), 100).unwrap()).unwrap();
        assert_eq!(too_long["error"]["code"], -32600);
        assert_eq!(too_long["id"], serde_json::Value::Null);
        assert!(
            refusal(
                &Line::Text(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.to_vec()),
                100
            )
            .is_none()
        );
        assert!(
            refusal(
                &Line::Text(br#"{"jsonrpc":"2.0","id":2,"method":"no/such"}"#.to_vec()),
                100
            )
            .is_none(),
            "unknown methods are rmcp's to answer (-32601)"
        );
        assert!(refusal(&Line::Text(b"  ".to_vec()), 100).is_none());
    }

    #[test]
    fn a_2026_request_goes_to_rmcp_unchanged() {
        let discover = br#"{"jsonrpc":"2.0","id":"d1","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}"#;
        assert!(refusal(&Line::Text(discover.to_vec()), 4096).is_none());
        let bare = br#"{"jsonrpc":"2.0","id":9,"method":"server/discover"}"#;
        assert!(refusal(&Line::Text(bare.to_vec()), 4096).is_none());
    }
}
