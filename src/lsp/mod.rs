//! `autosync lsp`: a Language Server over stdin/stdout (JSON-RPC, `lsp-server`).
//!
//! This thread reads the client's messages and keeps the text of each open document;
//! the [`worker`] thread checks documents and answers code actions. A document is
//! checked on open and on save (and, with `--check-on-change`, once it has not changed
//! for `--debounce` ms); its races and divergent barriers are published as diagnostics
//! ([`convert`]), and the barriers `autosync fix` would insert are offered as a quick
//! fix. The command line's options (`-I`, `-D`, `--block-dim`, `-p`, ...) apply to
//! every document, as they would to `autosync check`. Results are kept in the result
//! cache (`driver::cache`) of `--cache`, else `$XDG_CACHE_HOME/autosync` or the
//! platform's cache folder, unless `--no-cache`.
//!
//! Exit code: 0 after `shutdown` and `exit`; 1 when the client exits (or goes away)
//! without `shutdown`; 2 on a protocol error (a bad `initialize`).

mod convert;
mod worker;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{
    Cancel, DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument, Exit,
    Notification as _,
};
use lsp_types::request::{CodeActionRequest, Request as _, Shutdown};
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionProviderCapability, InitializeParams, MessageType,
    NumberOrString, PositionEncodingKind, SaveOptions, ServerCapabilities, ServerInfo, ShowMessageParams,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions, TextDocumentSyncSaveOptions,
    Uri,
};

use convert::{Encoding, LineIndex};
use driver::Lang;
use worker::{ActionJob, ClientCaps, Shared, Snapshot, Worker};

use crate::Status;
use crate::cli::LspArgs;

/// An open document.
struct Doc {
    version: i32,
    text: Arc<str>,
    path: PathBuf,
    /// `None`: not a language autosync reads (never checked).
    lang: Option<Lang>,
}

impl Doc {
    fn snapshot(&self, uri: &Uri) -> Option<Snapshot> {
        Some(Snapshot {
            uri: uri.clone(),
            version: self.version,
            text: Arc::clone(&self.text),
            path: self.path.clone(),
            lang: self.lang?,
        })
    }
}

/// Runs the server until the client says `exit`.
pub fn run(args: LspArgs) -> Status {
    let (conn, _io) = Connection::stdio();
    // The I/O threads are not joined: the writer lives as long as a check in flight
    // holds its channel, and everything the client waits for was written by `exit`.
    match serve(&conn, args) {
        Ok(status) => status,
        Err(e) => {
            eprintln!("autosync lsp: error: {e:#}");
            Status::Error
        }
    }
}

fn serve(conn: &Connection, args: LspArgs) -> Result<Status> {
    let (id, params) = conn.initialize_start()?;
    let init: InitializeParams = serde_json::from_value(params).context("bad `initialize` parameters")?;
    let caps = client_caps(&init);
    let result = serde_json::json!({
        "capabilities": server_capabilities(caps.encoding),
        "serverInfo": ServerInfo {
            name: "autosync".to_string(),
            version: Some(env!("CARGO_PKG_VERSION").to_string()),
        },
    });
    conn.initialize_finish(id, result)?;

    let db = match args.analysis.database() {
        Ok(db) => db,
        Err(e) => {
            let params = ShowMessageParams {
                typ: MessageType::ERROR,
                message: format!("autosync: {e:#} (going on without the compilation database)"),
            };
            send(
                conn,
                Notification::new("window/showMessage".to_string(), params).into(),
            );
            None
        }
    };
    // Results are kept between checks (and sessions) unless --no-cache.
    let mut analysis = args.analysis;
    let default_cache = if args.no_cache {
        None
    } else {
        driver::cache::ResultCache::default_dir()
    };
    if let Err(e) = analysis.open_cache(default_cache) {
        let params = ShowMessageParams {
            typ: MessageType::WARNING,
            message: format!("autosync: cannot use the cache: {e:#} (going on without it)"),
        };
        send(
            conn,
            Notification::new("window/showMessage".to_string(), params).into(),
        );
    }
    let shared = Arc::new(Shared::default());
    let worker = Worker::new(Arc::clone(&shared), conn.sender.clone(), analysis, db, caps);
    std::thread::Builder::new()
        .name("autosync-check".to_string())
        .stack_size(crate::WORKER_STACK)
        .spawn(move || worker.run())
        .context("cannot start the worker thread")?;

    let mut server = Server {
        conn,
        shared: &shared,
        docs: HashMap::new(),
        due: HashMap::new(),
        encoding: caps.encoding,
        on_change: args.check_on_change.then(|| Duration::from_millis(args.debounce)),
        shut_down: false,
    };
    let status = server.main_loop();
    shared.stop();
    status
}

fn send(conn: &Connection, m: Message) {
    // A client that went away is noticed by the reading side.
    let _ = conn.sender.send(m);
}

/// What the client can take: UTF-8 positions when it offers them (else UTF-16, LSP's
/// default), versioned document edits, disabled code actions.
fn client_caps(init: &InitializeParams) -> ClientCaps {
    let c = &init.capabilities;
    let utf8 = c
        .general
        .as_ref()
        .and_then(|g| g.position_encodings.as_ref())
        .is_some_and(|e| e.contains(&PositionEncodingKind::UTF8));
    ClientCaps {
        encoding: if utf8 { Encoding::Utf8 } else { Encoding::Utf16 },
        document_changes: c
            .workspace
            .as_ref()
            .and_then(|w| w.workspace_edit.as_ref())
            .and_then(|e| e.document_changes)
            .unwrap_or(false),
        disabled_actions: c
            .text_document
            .as_ref()
            .and_then(|t| t.code_action.as_ref())
            .and_then(|a| a.disabled_support)
            .unwrap_or(false),
    }
}

fn server_capabilities(enc: Encoding) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(match enc {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
        }),
        text_document_sync: Some(TextDocumentSyncCapability::Options(TextDocumentSyncOptions {
            open_close: Some(true),
            change: Some(TextDocumentSyncKind::FULL),
            save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                include_text: Some(false),
            })),
            ..TextDocumentSyncOptions::default()
        })),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            resolve_provider: Some(false),
            ..CodeActionOptions::default()
        })),
        ..ServerCapabilities::default()
    }
}

/// The path of a document (for includes and reports): its file, or for a document that
/// is not a file (an unsaved buffer) the last segment of its URI.
fn path_of(uri: &Uri) -> PathBuf {
    url::Url::parse(uri.as_str())
        .ok()
        .filter(|u| u.scheme() == "file")
        .and_then(|u| u.to_file_path().ok())
        .unwrap_or_else(|| {
            let s = uri.as_str();
            PathBuf::from(s.rsplit(['/', ':']).next().unwrap_or(s))
        })
}

/// The language of a document: by its extension, else by the client's language id.
fn lang_of(path: &std::path::Path, language_id: &str) -> Option<Lang> {
    Lang::of(path).or(match language_id {
        "cuda" | "cuda-cpp" | "cuda-c" | "cuda_cpp" => Some(Lang::Cuda),
        "kpl" => Some(Lang::Kpl),
        _ => None,
    })
}

/// What a code action request needs of its parameters. The `context` (the client's copy
/// of the diagnostics) is not read: the worker has the diagnostics of the version it
/// checked, and some clients send them incomplete.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct ActionParams {
    text_document: lsp_types::TextDocumentIdentifier,
    range: lsp_types::Range,
}

struct Server<'a> {
    conn: &'a Connection,
    shared: &'a Shared,
    docs: HashMap<Uri, Doc>,
    /// `--check-on-change`: when each edited document is due for a check.
    due: HashMap<Uri, Instant>,
    encoding: Encoding,
    on_change: Option<Duration>,
    /// `shutdown` was answered: waiting for `exit`.
    shut_down: bool,
}

impl Server<'_> {
    fn main_loop(&mut self) -> Result<Status> {
        loop {
            let next_due = self.due.values().min().copied();
            let msg = match next_due {
                Some(at) => match self
                    .conn
                    .receiver
                    .recv_timeout(at.saturating_duration_since(Instant::now()))
                {
                    Ok(m) => Some(m),
                    Err(e) if e.is_timeout() => None,
                    Err(_) => return Ok(Status::Defect),
                },
                None => match self.conn.receiver.recv() {
                    Ok(m) => Some(m),
                    Err(_) => return Ok(Status::Defect),
                },
            };
            match msg {
                None => self.check_due(),
                // After `shutdown` only `exit` counts (LSP: other requests are errors).
                Some(Message::Request(req)) if self.shut_down => {
                    let r = Response::new_err(
                        req.id,
                        ErrorCode::InvalidRequest as i32,
                        "the server is shut down".to_string(),
                    );
                    send(self.conn, r.into());
                }
                Some(Message::Request(req)) if req.method == Shutdown::METHOD => {
                    self.shut_down = true;
                    self.shared.stop();
                    self.due.clear();
                    send(self.conn, Response::new_ok(req.id, ()).into());
                }
                Some(Message::Request(req)) => self.request(req),
                Some(Message::Notification(n)) if n.method == Exit::METHOD => {
                    return Ok(if self.shut_down {
                        Status::Ok
                    } else {
                        Status::Defect
                    });
                }
                Some(Message::Notification(_)) if self.shut_down => {}
                Some(Message::Notification(n)) => {
                    if let Err(e) = self.notification(n) {
                        eprintln!("autosync lsp: {e:#}");
                    }
                }
                Some(Message::Response(_)) => {}
            }
        }
    }

    fn check_due(&mut self) {
        let now = Instant::now();
        let due: Vec<Uri> = self
            .due
            .iter()
            .filter(|(_, at)| **at <= now)
            .map(|(u, _)| u.clone())
            .collect();
        for uri in due {
            self.due.remove(&uri);
            self.check(&uri);
        }
    }

    fn check(&self, uri: &Uri) {
        if let Some(snap) = self.docs.get(uri).and_then(|d| d.snapshot(uri)) {
            self.shared.check(snap);
        }
    }

    fn request(&mut self, req: Request) {
        if req.method != CodeActionRequest::METHOD {
            let r = Response::new_err(
                req.id,
                ErrorCode::MethodNotFound as i32,
                format!("autosync does not answer `{}`", req.method),
            );
            send(self.conn, r.into());
            return;
        }
        let id = req.id;
        let params: ActionParams = match serde_json::from_value(req.params) {
            Ok(p) => p,
            Err(e) => {
                let r = Response::new_err(
                    id,
                    ErrorCode::InvalidParams as i32,
                    format!("bad codeAction parameters: {e}"),
                );
                send(self.conn, r.into());
                return;
            }
        };
        let uri = params.text_document.uri;
        match self.docs.get(&uri).and_then(|d| d.snapshot(&uri)) {
            Some(snap) => self.shared.action(ActionJob {
                id,
                snap,
                range: params.range,
            }),
            None => send(
                self.conn,
                Response::new_ok(id, Vec::<lsp_types::CodeActionOrCommand>::new()).into(),
            ),
        }
    }

    fn notification(&mut self, n: Notification) -> Result<()> {
        match n.method.as_str() {
            DidOpenTextDocument::METHOD => {
                let p: lsp_types::DidOpenTextDocumentParams = serde_json::from_value(n.params)?;
                let d = p.text_document;
                let path = path_of(&d.uri);
                let lang = lang_of(&path, &d.language_id);
                self.docs.insert(
                    d.uri.clone(),
                    Doc {
                        version: d.version,
                        text: d.text.into(),
                        path,
                        lang,
                    },
                );
                self.shared.set_version(&d.uri, d.version);
                self.check(&d.uri);
            }
            DidChangeTextDocument::METHOD => {
                let p: lsp_types::DidChangeTextDocumentParams = serde_json::from_value(n.params)?;
                let uri = p.text_document.uri;
                let Some(doc) = self.docs.get_mut(&uri) else {
                    return Ok(());
                };
                let mut text = doc.text.to_string();
                for c in p.content_changes {
                    match c.range {
                        None => text = c.text,
                        Some(r) => {
                            let index = LineIndex::new(&text, self.encoding);
                            let (s, e) = (index.offset(r.start), index.offset(r.end));
                            text.replace_range(s..e.max(s), &c.text);
                        }
                    }
                }
                doc.text = text.into();
                doc.version = p.text_document.version;
                // A check of an older version in flight is stale now.
                self.shared.set_version(&uri, doc.version);
                if let Some(delay) = self.on_change {
                    self.due.insert(uri, Instant::now() + delay);
                }
            }
            DidSaveTextDocument::METHOD => {
                let p: lsp_types::DidSaveTextDocumentParams = serde_json::from_value(n.params)?;
                self.due.remove(&p.text_document.uri);
                self.check(&p.text_document.uri);
            }
            DidCloseTextDocument::METHOD => {
                let p: lsp_types::DidCloseTextDocumentParams = serde_json::from_value(n.params)?;
                let uri = p.text_document.uri;
                self.docs.remove(&uri);
                self.due.remove(&uri);
                self.shared.close(&uri);
                // Diagnostics of a closed file go away.
                let params = lsp_types::PublishDiagnosticsParams::new(uri, Vec::new(), None);
                send(
                    self.conn,
                    Notification::new("textDocument/publishDiagnostics".to_string(), params).into(),
                );
            }
            Cancel::METHOD => {
                let p: lsp_types::CancelParams = serde_json::from_value(n.params)?;
                let id = match p.id {
                    NumberOrString::Number(i) => lsp_server::RequestId::from(i),
                    NumberOrString::String(s) => lsp_server::RequestId::from(s),
                };
                if let Some(r) = self.shared.cancel(&id) {
                    send(self.conn, r.into());
                }
            }
            _ => {}
        }
        Ok(())
    }
}
