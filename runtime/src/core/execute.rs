//! Running a batch: results in call order; consecutive parallel-safe calls run concurrently
//! under the read side of the turn's lock, every other call alone under the write side;
//! interrupts keep the real result of `result_on_interrupt` calls and replace the others'
//! with an honest text; a fatal handler error ends the turn.

use std::future::Future;
use std::pin::Pin;
use std::task::Poll;
use std::time::Duration;
use std::time::Instant;

use tokio::sync::RwLockReadGuard;
use tokio::sync::RwLockWriteGuard;
use tokio::sync::Semaphore;
use tokio::sync::SemaphorePermit;
use tokio_util::sync::CancellationToken;

use super::Runtime;
use super::SurfaceNames;
use super::batch::Batch;
use super::batch::BatchItem;
use super::batch::Outcome;
use super::batch::ToolResult;
use super::batch::TurnFault;
use super::turn::Turn;
use crate::call::CallContext;
use crate::call::CallInfo;
use crate::call::HandlerResult;
use crate::call::ToolError;

/// The honest text for a call dropped by an interrupt:
/// "shell_session wait was interrupted after 3.1 s; its output was not kept".
pub fn interrupted_text(display_name: &str, elapsed: Duration) -> String {
    format!(
        "{display_name} was interrupted after {:.1} s; its output was not kept",
        elapsed.as_secs_f64()
    )
}

/// The text for a call the interrupt reached before it started.
pub fn not_started_text(display_name: &str) -> String {
    format!("{display_name} was not run: the turn was interrupted before it started")
}

/// The refusal a non-read-only call gets in a rehearsal turn.
pub fn rehearsal_refusal(display_name: &str) -> String {
    format!("rehearsal: {display_name} is not read-only; only read-only actions run in rehearsal")
}

/// Whether a batch item needs the turn to itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lane {
    /// Runs alongside its parallel-safe neighbours (or does not run at all).
    Shared,
    Exclusive,
}

fn lane<C: CallInfo>(item: &BatchItem<C>, turn: &Turn) -> Lane {
    match item {
        // Items that will not run need no exclusion.
        BatchItem::Rejected { .. } => Lane::Shared,
        BatchItem::Call { call, .. } if turn.is_rehearsal() && !call.is_read_only() => Lane::Shared,
        BatchItem::Call { call, .. } if call.is_parallel_safe() => Lane::Shared,
        BatchItem::Call { .. } => Lane::Exclusive,
    }
}

/// A handler's fatal error, before it is wrapped into a [`TurnFault`].
struct Fatal {
    call_id: String,
    display_name: &'static str,
    message: String,
}

#[allow(dead_code)] // the guards are held, never read
enum TurnGuard<'a> {
    Read(RwLockReadGuard<'a, ()>),
    Write(RwLockWriteGuard<'a, ()>),
}

async fn acquire<'a>(
    turn: &'a Turn,
    parallel: bool,
    permits: &'a Semaphore,
) -> Option<(TurnGuard<'a>, SemaphorePermit<'a>)> {
    let guard = if parallel {
        TurnGuard::Read(turn.lock().read().await)
    } else {
        TurnGuard::Write(turn.lock().write().await)
    };
    let permit = permits.acquire().await.ok()?;
    Some((guard, permit))
}

impl<N: SurfaceNames> Runtime<N> {
    /// Execute `batch` in `turn`, dispatching each call with `dispatch`. Returns one result
    /// per batch item, in batch order, or the fault that ended the turn.
    ///
    /// `dispatch` is the host's per-call work, typically
    /// `|call, ctx| async move { call.dispatch(&handlers, &ctx).await }` over generated code.
    /// Its futures are polled in the caller's task (never spawned), so they may borrow.
    pub async fn execute<C, F, Fut>(
        &self,
        batch: impl Into<Batch<C>>,
        turn: &Turn,
        dispatch: F,
    ) -> Result<Vec<ToolResult>, TurnFault>
    where
        C: CallInfo,
        F: Fn(C, CallContext) -> Fut,
        Fut: Future<Output = HandlerResult>,
    {
        let batch = batch.into();
        let mut results: Vec<Option<ToolResult>> = vec![None; batch.items.len()];
        // Cancelled by an interrupt (the parent) or when a fault ends the turn.
        let cancel = turn.cancellation().child_token();
        let permits = Semaphore::new(self.config().limits.max_parallel.max(1));
        let dispatch = &dispatch;

        let mut items = batch.items.into_iter().enumerate().peekable();
        while let Some((first_index, first)) = items.next() {
            let mut group = vec![(first_index, first)];
            if lane(&group[0].1, turn) == Lane::Shared {
                while let Some((index, item)) =
                    items.next_if(|(_, item)| lane(item, turn) == Lane::Shared)
                {
                    group.push((index, item));
                }
            }
            let futures = group
                .into_iter()
                .map(|(index, item)| {
                    (
                        index,
                        Box::pin(self.run_item(item, turn, &cancel, &permits, dispatch)),
                    )
                })
                .collect();
            let (done, fatal) = join_until_error(futures).await;
            for (index, result) in done {
                if let Some(slot) = results.get_mut(index) {
                    *slot = Some(result);
                }
            }
            if let Some(fatal) = fatal {
                cancel.cancel();
                return Err(TurnFault {
                    call_id: fatal.call_id,
                    display_name: fatal.display_name,
                    message: fatal.message,
                    completed: results.into_iter().flatten().collect(),
                });
            }
        }
        Ok(results.into_iter().flatten().collect())
    }

    async fn run_item<C, F, Fut>(
        &self,
        item: BatchItem<C>,
        turn: &Turn,
        cancel: &CancellationToken,
        permits: &Semaphore,
        dispatch: &F,
    ) -> Result<ToolResult, Fatal>
    where
        C: CallInfo,
        F: Fn(C, CallContext) -> Fut,
        Fut: Future<Output = HandlerResult>,
    {
        let (call_id, call) = match item {
            BatchItem::Rejected { call_id, error } => {
                return Ok(ToolResult::error(call_id, error, Outcome::Refused));
            }
            BatchItem::Call { call_id, call } => (call_id, call),
        };
        let display_name = call.display_name();
        if turn.is_rehearsal() && !call.is_read_only() {
            return Ok(ToolResult::error(
                call_id,
                rehearsal_refusal(display_name),
                Outcome::Refused,
            ));
        }
        let not_started = |call_id| {
            ToolResult::error(call_id, not_started_text(display_name), Outcome::NotStarted)
        };
        if cancel.is_cancelled() {
            return Ok(not_started(call_id));
        }
        let acquired = tokio::select! {
            biased;
            () = cancel.cancelled() => None,
            acquired = acquire(turn, call.is_parallel_safe(), permits) => acquired,
        };
        let Some(_held) = acquired else {
            return Ok(not_started(call_id));
        };
        let host = match self.route(&call) {
            Ok(host) => host,
            Err(err) => {
                return Ok(ToolResult::error(
                    call_id,
                    err.to_string(),
                    Outcome::Refused,
                ));
            }
        };
        let ctx = CallContext {
            call_id: call_id.clone(),
            cancel: cancel.clone(),
            host,
            rehearsal: turn.is_rehearsal(),
            names: call.tool_names(),
        };
        let keep_on_interrupt = call.result_on_interrupt();
        let started = Instant::now();
        let future = dispatch(call, ctx);
        tokio::pin!(future);
        match self
            .settle(future, cancel, keep_on_interrupt, started)
            .await
        {
            Settled::Done(result, outcome) => finish(call_id, display_name, result, outcome),
            Settled::Dropped(elapsed) => Ok(ToolResult::error(
                call_id,
                interrupted_text(display_name, elapsed),
                Outcome::InterruptedDropped,
            )),
        }
    }

    /// Awaits a started call, honouring an interrupt: a call that finishes is kept (even in
    /// the poll the interrupt arrived in); an interrupted one is dropped, unless its tool
    /// keeps results on interrupt, which then gets the grace period to finish.
    async fn settle<Fut>(
        &self,
        mut future: Pin<&mut Fut>,
        cancel: &CancellationToken,
        keep_on_interrupt: bool,
        started: Instant,
    ) -> Settled
    where
        Fut: Future<Output = HandlerResult>,
    {
        let finished = tokio::select! {
            biased;
            result = &mut future => Some(result),
            () = cancel.cancelled() => None,
        };
        match finished {
            // Finished, perhaps in the very poll the interrupt arrived in (a handler that
            // watches ctx.cancel returns right then): its result is real either way.
            Some(result) if cancel.is_cancelled() => {
                Settled::Done(result, Outcome::InterruptedKept)
            }
            Some(result) => Settled::Done(result, Outcome::Completed),
            None if !keep_on_interrupt => Settled::Dropped(started.elapsed()),
            None => {
                let grace = Duration::from_millis(self.config().limits.interrupt_grace_ms);
                match tokio::time::timeout(grace, &mut future).await {
                    Ok(result) => Settled::Done(result, Outcome::InterruptedKept),
                    Err(_) => Settled::Dropped(started.elapsed()),
                }
            }
        }
    }
}

/// How a started call ended: with the handler's result, or dropped by an interrupt after
/// running this long.
enum Settled {
    Done(HandlerResult, Outcome),
    Dropped(Duration),
}

/// The handler's result as the call's [`ToolResult`]: both kinds of refusal go back to the
/// model, and so does an output that did not do what was asked ([`ToolOutput::unapplied`]:
/// a staged write), as an error result with its structured output; a fatal error ends the
/// turn.
///
/// [`ToolOutput::unapplied`]: crate::call::ToolOutput::unapplied
fn finish(
    call_id: String,
    display_name: &'static str,
    result: HandlerResult,
    outcome: Outcome,
) -> Result<ToolResult, Fatal> {
    match result {
        Ok(output) => Ok(ToolResult {
            call_id,
            is_error: output.unapplied(),
            text: output.text,
            structured: output.structured,
            outcome,
        }),
        Err(ToolError::Model(message) | ToolError::Argument(message)) => {
            Ok(ToolResult::error(call_id, message, outcome))
        }
        Err(ToolError::Fatal(message)) => Err(Fatal {
            call_id,
            display_name,
            message,
        }),
    }
}

/// Poll every future in this task until all are done or one fails; returns what finished
/// (in no particular order) and the failure, if any. The unfinished futures are dropped.
async fn join_until_error<T, E, Fut>(
    mut pending: Vec<(usize, Pin<Box<Fut>>)>,
) -> (Vec<(usize, T)>, Option<E>)
where
    Fut: Future<Output = Result<T, E>>,
{
    let mut done = Vec::with_capacity(pending.len());
    let mut failed = None;
    std::future::poll_fn(|cx| {
        let mut i = 0;
        while i < pending.len() {
            match pending[i].1.as_mut().poll(cx) {
                Poll::Pending => i += 1,
                Poll::Ready(output) => {
                    let (index, _) = pending.swap_remove(i);
                    match output {
                        Ok(value) => done.push((index, value)),
                        Err(err) => {
                            failed = Some(err);
                            return Poll::Ready(());
                        }
                    }
                }
            }
        }
        if pending.is_empty() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await;
    (done, failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interrupted_text_has_one_decimal() {
        assert_eq!(
            interrupted_text("shell_session wait", Duration::from_millis(3_140)),
            "shell_session wait was interrupted after 3.1 s; its output was not kept"
        );
        assert_eq!(
            interrupted_text("shell", Duration::from_millis(20)),
            "shell was interrupted after 0.0 s; its output was not kept"
        );
    }
}
