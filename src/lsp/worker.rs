//! The thread that checks documents and answers code actions, away from the thread that
//! reads the client's messages (a check can take seconds).
//!
//! Stale work is dropped: the queue holds the newest text of each document only, a check
//! stops once the document has a newer version (or the server is shutting down), and
//! results of an old version are never published. A code action asked of a version
//! that is no longer the newest is answered `ContentModified`, one the client cancelled
//! `RequestCanceled`.
//!
//! A check or code action in flight works under a cancellation token of its own
//! (`driver::interrupt`): a newer version of its document (or the client's
//! `$/cancelRequest`, or the shutdown) cancels it, which interrupts its solver queries
//! at once, inside a kernel, and the work comes back without an answer.

use std::collections::{HashMap, VecDeque};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use lsp_server::{ErrorCode, Message, Notification, RequestId, Response};
use lsp_types::{
    CodeAction, CodeActionDisabled, CodeActionKind, CodeActionOrCommand, Diagnostic, DocumentChanges, OneOf,
    OptionalVersionedTextDocumentIdentifier, PublishDiagnosticsParams, Range, TextDocumentEdit, TextEdit,
    Uri, WorkspaceEdit,
};

use driver::interrupt::Cancel;
use driver::{FixStatus, Lang, source};

use super::convert::{self, Encoding, LineIndex, rule};
use crate::cli::Analysis;

/// One version of an open document.
#[derive(Clone)]
pub struct Snapshot {
    pub uri: Uri,
    pub version: i32,
    pub text: Arc<str>,
    /// Where the file is (includes are searched next to it).
    pub path: PathBuf,
    pub lang: Lang,
}

/// A `textDocument/codeAction` request.
pub struct ActionJob {
    pub id: RequestId,
    pub snap: Snapshot,
    pub range: Range,
}

/// What the client can take, as `initialize` said.
#[derive(Clone, Copy, Debug)]
pub struct ClientCaps {
    pub encoding: Encoding,
    /// Versioned `documentChanges` in a `WorkspaceEdit`.
    pub document_changes: bool,
    /// `CodeAction::disabled`.
    pub disabled_actions: bool,
}

#[derive(Default)]
struct State {
    /// Documents to check, the newest text of each, in the order they came.
    checks: VecDeque<Snapshot>,
    actions: VecDeque<ActionJob>,
    /// Closed documents whose results the worker can forget.
    closed: Vec<Uri>,
    /// The newest version of each open document.
    latest: HashMap<Uri, i32>,
    /// The code action being answered, and whether the client cancelled it.
    in_flight: Option<(RequestId, bool)>,
    /// The check or code action running: its document, version and token.
    running: Option<(Uri, i32, Cancel)>,
    stop: bool,
}

impl State {
    /// Cancels the work running once its version is no longer the newest (or the server
    /// stops).
    fn cancel_stale(&self) {
        if let Some((uri, version, token)) = &self.running
            && (self.stop || self.latest.get(uri) != Some(version))
        {
            token.cancel();
        }
    }
}

/// The queue between the reading thread and the worker.
#[derive(Default)]
pub struct Shared {
    state: Mutex<State>,
    wake: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while the lock was held left plain data behind: go on with it.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A document has a new version (opened or changed): older work on it is stale.
    pub fn set_version(&self, uri: &Uri, version: i32) {
        let mut s = self.lock();
        s.latest.insert(uri.clone(), version);
        s.cancel_stale();
    }

    /// Checks this version of a document (replacing a check of it not started yet).
    pub fn check(&self, snap: Snapshot) {
        let mut s = self.lock();
        s.latest.insert(snap.uri.clone(), snap.version);
        s.checks.retain(|c| c.uri != snap.uri);
        s.checks.push_back(snap);
        s.cancel_stale();
        self.wake.notify_one();
    }

    pub fn action(&self, job: ActionJob) {
        self.lock().actions.push_back(job);
        self.wake.notify_one();
    }

    /// A document was closed: nothing more is checked or published for it.
    pub fn close(&self, uri: &Uri) {
        let mut s = self.lock();
        s.latest.remove(uri);
        s.checks.retain(|c| &c.uri != uri);
        s.closed.push(uri.clone());
        s.cancel_stale();
        self.wake.notify_one();
    }

    /// `$/cancelRequest`: the answer when the request was still queued (the caller
    /// sends it); a request being answered is answered `RequestCanceled` when done.
    pub fn cancel(&self, id: &RequestId) -> Option<Response> {
        let mut s = self.lock();
        if let Some(i) = s.actions.iter().position(|a| &a.id == id) {
            s.actions.remove(i);
            return Some(cancelled(id.clone()));
        }
        if let Some((current, flag)) = s.in_flight.as_mut()
            && current == id
        {
            *flag = true;
            // The action running is the one cancelled (one runs at a time).
            if let Some((_, _, token)) = &s.running {
                token.cancel();
            }
        }
        None
    }

    /// Stops the worker (the work running is cancelled).
    pub fn stop(&self) {
        let mut s = self.lock();
        s.stop = true;
        s.cancel_stale();
        self.wake.notify_one();
    }

    /// Work on this version of a document starts under `token`: `false` when the
    /// version is stale already.
    fn start(&self, uri: &Uri, version: i32, token: &Cancel) -> bool {
        let mut s = self.lock();
        s.running = Some((uri.clone(), version, token.clone()));
        s.cancel_stale();
        !token.is_cancelled()
    }

    /// The work running is done.
    fn end(&self) {
        self.lock().running = None;
    }

    /// Whether `version` is the newest version of the document and the server goes on.
    fn current(&self, uri: &Uri, version: i32) -> bool {
        let s = self.lock();
        !s.stop && s.latest.get(uri) == Some(&version)
    }

    fn next(&self) -> Option<Job> {
        let mut s = self.lock();
        loop {
            if s.stop {
                return None;
            }
            if let Some(uri) = s.closed.pop() {
                return Some(Job::Forget(uri));
            }
            if let Some(c) = s.checks.pop_front() {
                return Some(Job::Check(c));
            }
            if let Some(a) = s.actions.pop_front() {
                s.in_flight = Some((a.id.clone(), false));
                return Some(Job::Action(a));
            }
            s = self.wake.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// The code action in flight is answered: whether the client cancelled it.
    fn finish_action(&self) -> bool {
        self.lock().in_flight.take().is_some_and(|(_, c)| c)
    }
}

fn cancelled(id: RequestId) -> Response {
    Response::new_err(id, ErrorCode::RequestCanceled as i32, "cancelled".to_string())
}

enum Job {
    Check(Snapshot),
    Action(ActionJob),
    Forget(Uri),
}

/// The quick fix of one checked version of a document.
enum Fix {
    /// The edits `autosync fix` makes, and a title.
    Edits(String, Vec<TextEdit>),
    /// The edits of `autosync fix --partial` (races between blocks remain), and a title:
    /// offered, but not as the preferred fix.
    Partial(String, Vec<TextEdit>),
    /// Why there is none.
    None(String),
}

/// The last checked version of a document.
struct Checked {
    version: i32,
    diagnostics: Vec<Diagnostic>,
    fix: Option<Fix>,
}

/// The worker thread's state: what it needs to check a document, and the last checked
/// version of each.
pub struct Worker {
    shared: Arc<Shared>,
    sender: crossbeam_channel::Sender<Message>,
    analysis: Analysis,
    db: Option<driver::compdb::Database>,
    caps: ClientCaps,
    checked: HashMap<Uri, Checked>,
}

impl Worker {
    pub fn new(
        shared: Arc<Shared>,
        sender: crossbeam_channel::Sender<Message>,
        analysis: Analysis,
        db: Option<driver::compdb::Database>,
        caps: ClientCaps,
    ) -> Self {
        Worker {
            shared,
            sender,
            analysis,
            db,
            caps,
            checked: HashMap::new(),
        }
    }

    /// Runs jobs until the server stops.
    pub fn run(mut self) {
        while let Some(job) = self.shared.next() {
            match job {
                Job::Forget(uri) => {
                    self.checked.remove(&uri);
                }
                Job::Check(snap) => self.check(snap),
                Job::Action(job) => {
                    let response = self.action(&job);
                    let response = if self.shared.finish_action() {
                        cancelled(job.id)
                    } else {
                        response
                    };
                    self.send(response.into());
                }
            }
        }
    }

    fn send(&self, m: Message) {
        // The client went away: the reading thread ends the server.
        let _ = self.sender.send(m);
    }

    fn settings(&self, snap: &Snapshot) -> driver::Settings {
        self.analysis.settings_for(self.db.as_ref(), &snap.path)
    }

    fn load(&self, snap: &Snapshot, settings: &driver::Settings) -> anyhow::Result<source::Source> {
        source::from_text(&snap.path, snap.text.to_string(), snap.lang, &settings.front_end)
    }

    /// Checks a document and publishes its diagnostics, unless a newer version came
    /// meanwhile.
    fn check(&mut self, snap: Snapshot) {
        let shared = Arc::clone(&self.shared);
        let keep_going = || shared.current(&snap.uri, snap.version);
        let token = Cancel::new();
        if !keep_going() || !self.shared.start(&snap.uri, snap.version, &token) {
            self.shared.end();
            return;
        }
        let index = LineIndex::new(&snap.text, self.caps.encoding);
        let settings = self.settings(&snap);
        let outcome = token.run(|| self.check_text(&snap, &settings, &index, &keep_going));
        self.shared.end();
        // A cancelled check has no answer (its version is stale).
        if token.is_cancelled() {
            return;
        }
        let diagnostics = match outcome {
            Ok(Some(d)) => d,
            Ok(None) => return,
            Err(_) => vec![internal_error(index.range(0..0))],
        };
        if !keep_going() {
            return;
        }
        self.publish(&snap.uri, snap.version, diagnostics.clone());
        self.checked.insert(
            snap.uri.clone(),
            Checked {
                version: snap.version,
                diagnostics,
                fix: None,
            },
        );
    }

    /// The diagnostics of one version of a document (`None`: stale); a panic is `Err`.
    fn check_text(
        &self,
        snap: &Snapshot,
        settings: &driver::Settings,
        index: &LineIndex,
        keep_going: &dyn Fn() -> bool,
    ) -> std::thread::Result<Option<Vec<Diagnostic>>> {
        catch_unwind(AssertUnwindSafe(|| -> Option<Vec<Diagnostic>> {
            let src = match self.load(snap, settings) {
                Ok(src) => src,
                Err(e) => return Some(vec![convert::error_diagnostic(&snap.path, &e, index)]),
            };
            match driver::check_file_while(settings, &src, keep_going) {
                Ok(Some(results)) => Some(convert::check_diagnostics(&src, &results, &snap.uri, index)),
                Ok(None) => None,
                Err(e) if e.is::<driver::Interrupted>() => None,
                Err(e) => Some(vec![convert::error_diagnostic(&snap.path, &e, index)]),
            }
        }))
    }

    fn publish(&self, uri: &Uri, version: i32, diagnostics: Vec<Diagnostic>) {
        let params = PublishDiagnosticsParams::new(uri.clone(), diagnostics, Some(version));
        self.send(Notification::new("textDocument/publishDiagnostics".to_string(), params).into());
    }

    /// The quick fix for the races and divergent barriers in a range: one action with
    /// the edits `autosync fix` makes to the whole file.
    fn action(&mut self, job: &ActionJob) -> Response {
        let snap = &job.snap;
        let modified = || {
            Response::new_err(
                job.id.clone(),
                ErrorCode::ContentModified as i32,
                "the document changed".to_string(),
            )
        };
        if !self.shared.current(&snap.uri, snap.version) {
            return modified();
        }
        // Only a version that was checked has diagnostics to fix.
        let Some(checked) = self.checked.get(&snap.uri).filter(|c| c.version == snap.version) else {
            return Response::new_ok(job.id.clone(), Vec::<CodeActionOrCommand>::new());
        };
        let fixable: Vec<Diagnostic> = checked
            .diagnostics
            .iter()
            .filter(|d| is_fixable(d) && overlaps(d.range, job.range))
            .cloned()
            .collect();
        if fixable.is_empty() {
            return Response::new_ok(job.id.clone(), Vec::<CodeActionOrCommand>::new());
        }
        if checked.fix.is_none() {
            // A divergent barrier is not moved by `fix` as it is (the kernel has no
            // solution then), but `fix --strip` places the barriers anew.
            let divergent = checked
                .diagnostics
                .iter()
                .any(|d| has_rule(d, rule::BARRIER_DIVERGENCE));
            let token = Cancel::new();
            let fix = self.shared.start(&snap.uri, snap.version, &token).then(|| {
                token.run(|| {
                    let fix = self.fix(snap, false);
                    if divergent && matches!(fix, Fix::None(_)) {
                        let strip = self.fix(snap, true);
                        if matches!(strip, Fix::Edits(..)) {
                            return strip;
                        }
                    }
                    fix
                })
            });
            self.shared.end();
            if !self.shared.current(&snap.uri, snap.version) {
                return modified();
            }
            // Cancelled by the client (answered `RequestCanceled`): nothing to keep.
            let Some(fix) = fix.filter(|_| !token.is_cancelled()) else {
                return cancelled(job.id.clone());
            };
            if let Some(c) = self.checked.get_mut(&snap.uri) {
                c.fix = Some(fix);
            }
        }
        let Some(fix) = self.checked.get(&snap.uri).and_then(|c| c.fix.as_ref()) else {
            return modified();
        };
        let action = match fix {
            Fix::Edits(title, edits) | Fix::Partial(title, edits) => CodeAction {
                title: title.clone(),
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(fixable),
                edit: Some(self.workspace_edit(snap, edits.clone())),
                is_preferred: Some(matches!(fix, Fix::Edits(..))),
                ..CodeAction::default()
            },
            Fix::None(why) if self.caps.disabled_actions => CodeAction {
                title: "Insert barriers (autosync fix)".to_string(),
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(fixable),
                disabled: Some(CodeActionDisabled { reason: why.clone() }),
                ..CodeAction::default()
            },
            Fix::None(_) => return Response::new_ok(job.id.clone(), Vec::<CodeActionOrCommand>::new()),
        };
        Response::new_ok(job.id.clone(), vec![CodeActionOrCommand::CodeAction(action)])
    }

    /// What `autosync fix` (default options, or `--strip`) makes of this version of the
    /// document.
    fn fix(&self, snap: &Snapshot, strip: bool) -> Fix {
        let settings = self.settings(snap);
        let fix_settings = driver::FixSettings {
            strip,
            ..driver::FixSettings::default()
        };
        let command = if strip {
            "autosync fix --strip"
        } else {
            "autosync fix"
        };
        let outcome = catch_unwind(AssertUnwindSafe(|| -> anyhow::Result<Fix> {
            let src = self.load(snap, &settings)?;
            let fix = driver::fix(&settings, &fix_settings, &src)?;
            Ok(self.fix_of(&src, &fix, command))
        }));
        match outcome {
            Ok(Ok(fix)) => fix,
            Ok(Err(e)) => Fix::None(format!("autosync fix failed: {e:#}")),
            Err(_) => Fix::None("autosync fix failed (internal error)".to_string()),
        }
    }

    fn fix_of(&self, src: &source::Source, fix: &driver::FileFix, command: &str) -> Fix {
        if !fix.complete() && fix.partial() && fix.fixable_part_fixed() {
            // The races barriers can fix, fixed; those between blocks stay (`fix --partial`).
            let left: usize = fix.kernels.iter().map(|k| k.races.races.len()).sum();
            let title = format!(
                "Insert barriers for the fixable races ({left} race{} between blocks remain{})",
                if left == 1 { "" } else { "s" },
                if left == 1 { "s" } else { "" }
            );
            return Fix::Partial(title, self.edits_of(src, fix));
        }
        if !fix.complete() {
            let why: Vec<String> = fix
                .kernels
                .iter()
                .filter(|k| !matches!(k.status, FixStatus::Fixed | FixStatus::Unchanged))
                .map(|k| {
                    format!(
                        "kernel `{}`: {}{}",
                        k.name,
                        k.status.word(),
                        k.reason.as_ref().map_or(String::new(), |r| format!(" ({r})"))
                    )
                })
                .collect();
            return Fix::None(format!("no barrier-only fix: {}", why.join("; ")));
        }
        if !fix.changed() {
            return Fix::None("autosync fix finds nothing to change".to_string());
        }
        let edits = self.edits_of(src, fix);
        let inserted: usize = fix.kernels.iter().map(|k| k.inserted.len()).sum();
        let removed: usize = fix.kernels.iter().map(|k| k.removed.len()).sum();
        let title = match fix.edits.as_slice() {
            [one] if command == "autosync fix" => one.what.trim_end_matches('.').to_string(),
            _ => {
                let plural = |n: usize| if n == 1 { "" } else { "s" };
                let mut t = format!("Insert {inserted} barrier{}", plural(inserted));
                if removed > 0 {
                    t.push_str(&format!(", remove {removed}"));
                }
                t.push_str(&format!(" ({command})"));
                t
            }
        };
        Fix::Edits(title, edits)
    }

    /// The edits that turn the document into `fix.fixed_text`, in the client's positions.
    fn edits_of(&self, src: &source::Source, fix: &driver::FileFix) -> Vec<TextEdit> {
        let index = LineIndex::new(&src.text, self.caps.encoding);
        let edits = convert::text_edits(&fix.edits, &index);
        if convert::apply(&src.text, &edits, self.caps.encoding) == fix.fixed_text {
            return edits;
        }
        // Never expected: the fixed text as one edit is what `fix` writes all the same.
        vec![TextEdit::new(
            index.range(0..src.text.len()),
            fix.fixed_text.clone(),
        )]
    }

    fn workspace_edit(&self, snap: &Snapshot, edits: Vec<TextEdit>) -> WorkspaceEdit {
        if self.caps.document_changes {
            WorkspaceEdit {
                document_changes: Some(DocumentChanges::Edits(vec![TextDocumentEdit {
                    text_document: OptionalVersionedTextDocumentIdentifier {
                        uri: snap.uri.clone(),
                        version: Some(snap.version),
                    },
                    edits: edits.into_iter().map(OneOf::Left).collect(),
                }])),
                ..WorkspaceEdit::default()
            }
        } else {
            WorkspaceEdit::new(HashMap::from([(snap.uri.clone(), edits)]))
        }
    }
}

fn has_rule(d: &Diagnostic, rule: &str) -> bool {
    matches!(&d.code, Some(lsp_types::NumberOrString::String(c)) if c == rule)
}

/// A race or divergent barrier a barrier placement can fix (not a race across blocks).
fn is_fixable(d: &Diagnostic) -> bool {
    has_rule(d, rule::DATA_RACE) || has_rule(d, rule::BARRIER_DIVERGENCE)
}

/// Whether two ranges share a position (an empty range touching the other counts).
fn overlaps(a: Range, b: Range) -> bool {
    let key = |p: lsp_types::Position| (p.line, p.character);
    key(a.start) <= key(b.end) && key(b.start) <= key(a.end)
}

fn internal_error(range: Range) -> Diagnostic {
    Diagnostic {
        range,
        severity: Some(lsp_types::DiagnosticSeverity::WARNING),
        code: Some(lsp_types::NumberOrString::String(rule::UNSUPPORTED.to_string())),
        source: Some(convert::SOURCE.to_string()),
        message: "autosync could not check this file: internal error (please report it with the file)"
            .to_string(),
        ..Diagnostic::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(uri: &Uri, version: i32) -> Snapshot {
        Snapshot {
            uri: uri.clone(),
            version,
            text: Arc::from(""),
            path: PathBuf::from("a.cu"),
            lang: Lang::Cuda,
        }
    }

    fn uri(s: &str) -> Uri {
        s.parse().unwrap_or_else(|e| panic!("{s}: {e:?}"))
    }

    #[test]
    fn a_newer_version_replaces_and_outdates_the_older() {
        let shared = Shared::default();
        let (a, b) = (uri("file:///a.cu"), uri("file:///b.cu"));
        shared.check(snap(&a, 1));
        shared.check(snap(&b, 1));
        shared.check(snap(&a, 2));
        // One check per document, the newest text, in the order the documents came.
        let mut order = Vec::new();
        for _ in 0..2 {
            if let Some(Job::Check(c)) = shared.next() {
                order.push((c.uri.to_string(), c.version));
            }
        }
        assert!(shared.lock().checks.is_empty());
        assert_eq!(
            order,
            [("file:///b.cu".to_string(), 1), ("file:///a.cu".to_string(), 2)]
        );
        assert!(shared.current(&a, 2) && !shared.current(&a, 1));
        // An edit outdates the check in flight.
        shared.set_version(&a, 3);
        assert!(!shared.current(&a, 2));
        // Closed, stopped: nothing is current.
        shared.close(&b);
        assert!(!shared.current(&b, 1));
        shared.stop();
        assert!(!shared.current(&a, 3));
        assert!(shared.next().is_none());
    }

    #[test]
    fn a_newer_version_or_the_stop_cancels_the_work_running() {
        let shared = Shared::default();
        let a = uri("file:///a.cu");
        shared.set_version(&a, 1);
        let t = Cancel::new();
        assert!(shared.start(&a, 1, &t));
        // Another document's edit, or the same version again: not stale.
        shared.set_version(&uri("file:///b.cu"), 5);
        shared.set_version(&a, 1);
        assert!(!t.is_cancelled());
        shared.set_version(&a, 2);
        assert!(t.is_cancelled(), "an edit interrupts the check of the old text");
        shared.end();
        // Stale already when it starts: cancelled at once.
        let t = Cancel::new();
        assert!(!shared.start(&a, 1, &t) && t.is_cancelled());
        shared.end();
        let t = Cancel::new();
        assert!(shared.start(&a, 2, &t));
        shared.stop();
        assert!(t.is_cancelled(), "the shutdown interrupts the work running");
        assert!(!Cancel::process().is_cancelled());
    }

    #[test]
    fn cancelling_a_queued_or_running_code_action() {
        let shared = Shared::default();
        let a = uri("file:///a.cu");
        let job = |id: i32| ActionJob {
            id: RequestId::from(id),
            snap: snap(&a, 1),
            range: Range::default(),
        };
        shared.action(job(1));
        shared.action(job(2));
        // Queued: answered at once, never run.
        let r = shared
            .cancel(&RequestId::from(2))
            .map(|r| r.response_result.err().map(|e| e.code));
        assert_eq!(r, Some(Some(ErrorCode::RequestCanceled as i32)));
        // Running: answered cancelled when done.
        assert!(matches!(shared.next(), Some(Job::Action(j)) if j.id == RequestId::from(1)));
        assert!(shared.cancel(&RequestId::from(1)).is_none());
        assert!(shared.finish_action());
        // Unknown or answered: nothing.
        assert!(shared.cancel(&RequestId::from(7)).is_none());
        assert!(!shared.finish_action());
    }
}
