//! Issue #18, "diagnostics while editing": `autosync lsp` end to end over stdio, as an
//! editor drives it (JSON-RPC with `Content-Length` framing): initialize, didOpen,
//! publishDiagnostics, codeAction, applying the quick fix, shutdown and exit.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::autosync_in;

/// How long any expected message may take (a check is well under a second; CI machines
/// are slow and shared).
const TIMEOUT: Duration = Duration::from_secs(120);

/// A kernel whose threads read the neighbour's element of `buf` without a barrier after
/// writing their own. The comment with a non-ASCII character sits before the read on its
/// line, so UTF-8 and UTF-16 columns differ.
const RACY: &str = "//--blockDim=64 --gridDim=1\n\
__global__ void shift(int *out) {\n\
  __shared__ int buf[64];\n\
  buf[threadIdx.x] = out[threadIdx.x];\n\
  out[threadIdx.x] = /*\u{b5}*/ buf[(threadIdx.x + 1) % 64];\n\
}\n";

const CLEAN: &str = "//--blockDim=64 --gridDim=1\n\
__global__ void copy(int *out, const int *in) {\n\
  out[threadIdx.x] = in[threadIdx.x] + 1;\n\
}\n";

/// A race unless `SYNC` is defined.
const GUARDED: &str = "//--blockDim=32 --gridDim=1\n\
__global__ void turn(int *out) {\n\
  __shared__ int t[32];\n\
  t[threadIdx.x] = out[threadIdx.x];\n\
#ifdef SYNC\n\
  __syncthreads();\n\
#endif\n\
  out[threadIdx.x] = t[31 - threadIdx.x];\n\
}\n";

/// A barrier only half of the threads reach, and the race it was meant to remove.
const DIVERGENT: &str = "//--blockDim=64 --gridDim=1\n\
__global__ void half(int *out) {\n\
  __shared__ int s[64];\n\
  s[threadIdx.x] = out[threadIdx.x];\n\
  if (threadIdx.x < 32) {\n\
    __syncthreads();\n\
  }\n\
  out[threadIdx.x] = s[63 - threadIdx.x];\n\
}\n";

/// A racy kernel beside one the front end cannot lower (inline PTX that loads).
const PARTLY: &str = "//--blockDim=32 --gridDim=1\n\
__global__ void racy(int *a) {\n\
  __shared__ int s[32];\n\
  s[threadIdx.x] = a[threadIdx.x];\n\
  a[threadIdx.x] = s[(threadIdx.x + 5) % 32];\n\
}\n\
__global__ void opaque(unsigned *p) {\n\
  unsigned v;\n\
  asm volatile(\"mbarrier.try_wait.shared.b64 %0, [%1];\" : \"=r\"(v) : \"l\"(p));\n\
  p[threadIdx.x] = v + 1;\n\
}\n";

pub(crate) struct Server {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    /// Messages read while waiting for another one.
    backlog: Vec<Value>,
    next_id: i64,
    dir: tempfile::TempDir,
}

fn read_message(r: &mut impl BufRead) -> Option<Value> {
    let mut len = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length:") {
            len = v.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0; len?];
    r.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

impl Server {
    pub(crate) fn start(args: &[&str]) -> Server {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut child = Command::new(env!("CARGO_BIN_EXE_autosync"))
            .arg("lsp")
            .args(args)
            .current_dir(dir.path())
            // The default result cache is `$XDG_CACHE_HOME/autosync`: in the temporary
            // folder, never the user's.
            .env("XDG_CACHE_HOME", dir.path().join("xdg-cache"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start autosync lsp");
        let stdin = child.stdin.take().expect("stdin");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            while let Some(m) = read_message(&mut stdout) {
                if tx.send(m).is_err() {
                    break;
                }
            }
        });
        Server {
            child,
            stdin,
            messages: rx,
            backlog: Vec::new(),
            next_id: 1,
            dir,
        }
    }

    fn send(&mut self, v: Value) {
        let body = v.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write to the server");
        self.stdin.flush().expect("flush");
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request; its id.
    fn request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// The first message (backlog first, then new ones) that `pred` accepts.
    fn wait_for(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.backlog.iter().position(&pred) {
            return self.backlog.remove(i);
        }
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.messages.recv_timeout(left) {
                Ok(m) if pred(&m) => return m,
                Ok(m) => self.backlog.push(m),
                Err(RecvTimeoutError::Timeout) => {
                    panic!("no {what} within {TIMEOUT:?}; got {:#?}", self.backlog)
                }
                Err(RecvTimeoutError::Disconnected) => panic!("the server closed stdout waiting for {what}"),
            }
        }
    }

    fn response(&mut self, id: i64) -> Value {
        self.wait_for(&format!("response {id}"), |m| {
            m["id"] == json!(id) && m.get("method").is_none()
        })
    }

    /// The diagnostics published for `uri` at `version`.
    pub(crate) fn diagnostics(&mut self, uri: &str, version: i64) -> Vec<Value> {
        let m = self.wait_for(&format!("diagnostics of {uri} v{version}"), |m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && m["params"]["version"] == json!(version)
        });
        m["params"]["diagnostics"].as_array().cloned().unwrap_or_default()
    }

    /// `initialize` (with these client capabilities) and `initialized`; the result.
    pub(crate) fn initialize(&mut self, capabilities: Value) -> Value {
        let root = format!("file://{}", self.dir.path().display());
        let id = self.request(
            "initialize",
            json!({"processId": null, "rootUri": root, "capabilities": capabilities}),
        );
        let r = self.response(id);
        self.notify("initialized", json!({}));
        r["result"].clone()
    }

    /// Writes a file into the server's folder and opens it; its URI.
    pub(crate) fn open(&mut self, name: &str, text: &str, version: i64) -> String {
        let path = self.dir.path().join(name);
        std::fs::write(&path, text).expect("write file");
        let uri = format!("file://{}", path.display());
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "cuda", "version": version, "text": text}}),
        );
        uri
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `shutdown` then `exit`; the exit code.
    pub(crate) fn shutdown(mut self) -> i32 {
        let id = self.request("shutdown", Value::Null);
        let r = self.response(id);
        assert!(r.get("error").is_none(), "{r}");
        self.notify("exit", Value::Null);
        self.exit_code()
    }

    fn exit_code(mut self) -> i32 {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(s) = self.child.try_wait().expect("wait") {
                return s.code().expect("exit code");
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An LSP position (UTF-16 columns) of a byte offset.
fn position(text: &str, offset: usize) -> Value {
    let before = &text[..offset];
    let line = before.matches('\n').count();
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    json!({"line": line, "character": text[start..offset].encode_utf16().count()})
}

fn range_of(text: &str, needle: &str) -> Value {
    let s = text
        .find(needle)
        .unwrap_or_else(|| panic!("`{needle}` not in the text"));
    json!({"start": position(text, s), "end": position(text, s + needle.len())})
}

/// Applies LSP text edits (UTF-16 positions, none overlapping) to a text.
fn apply(text: &str, edits: &[Value]) -> String {
    let offset = |p: &Value| {
        let line = p["line"].as_u64().expect("line") as usize;
        let ch = p["character"].as_u64().expect("character") as usize;
        let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
        let mut units = 0;
        for (i, c) in text[start..].char_indices() {
            if units >= ch || c == '\n' {
                return start + i;
            }
            units += c.len_utf16();
        }
        text.len()
    };
    let mut spans: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|e| {
            (
                offset(&e["range"]["start"]),
                offset(&e["range"]["end"]),
                e["newText"].as_str().expect("newText"),
            )
        })
        .collect();
    spans.sort_by_key(|&(s, e, _)| (s, e));
    let (mut out, mut pos) = (String::new(), 0);
    for (s, e, new) in spans {
        assert!(s >= pos, "overlapping edits");
        out.push_str(&text[pos..s]);
        out.push_str(new);
        pos = e;
    }
    out.push_str(&text[pos..]);
    out
}

/// Applies a quick fix's edits to the file `name` (whose text is `text`): the result is
/// exactly what `autosync fix FLAGS` writes, and it checks clean. The fixed text.
fn assert_is_the_fix(s: &Server, name: &str, text: &str, edits: &[Value], flags: &[&str]) -> String {
    let fixed = apply(text, edits);
    let mut args = vec!["fix", "--stdout"];
    args.extend_from_slice(flags);
    args.push(name);
    let want = autosync_in(s.dir.path(), &args);
    assert_eq!(fixed, String::from_utf8_lossy(&want.stdout));
    std::fs::write(s.path(name), &fixed).expect("write");
    let check = autosync_in(s.dir.path(), &["check", name]);
    let report = String::from_utf8_lossy(&check.stdout);
    assert_eq!(check.status.code(), Some(0), "{report}");
    fixed
}

/// The edits of a code action's `documentChanges`.
fn edits_of(action: &Value) -> Vec<Value> {
    action["edit"]["documentChanges"][0]["edits"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// What an editor such as VS Code offers.
pub(crate) fn editor_capabilities() -> Value {
    json!({
        "general": {"positionEncodings": ["utf-16"]},
        "workspace": {"workspaceEdit": {"documentChanges": true}},
        "textDocument": {
            "publishDiagnostics": {"relatedInformation": true, "versionSupport": true},
            "codeAction": {"disabledSupport": true}
        }
    })
}

#[test]
fn races_are_diagnostics_and_the_quick_fix_is_the_fix() {
    let mut s = Server::start(&[]);
    let init = s.initialize(editor_capabilities());
    let caps = &init["capabilities"];
    assert_eq!(caps["positionEncoding"], "utf-16");
    assert_eq!(caps["textDocumentSync"]["openClose"], true);
    assert_eq!(caps["textDocumentSync"]["change"], 1, "full text sync");
    assert!(caps["textDocumentSync"]["save"].is_object());
    assert_eq!(caps["codeActionProvider"]["codeActionKinds"], json!(["quickfix"]));
    assert_eq!(init["serverInfo"]["name"], "autosync");

    let uri = s.open("shift.cu", RACY, 1);
    let diags = s.diagnostics(&uri, 1);
    assert_eq!(diags.len(), 1, "{diags:#?}");
    let d = &diags[0];
    let read = "buf[(threadIdx.x + 1) % 64]";
    let write = "buf[threadIdx.x] = out[threadIdx.x];";
    assert_eq!(d["range"], range_of(RACY, read));
    // Line 5 (0-based 4), after the comment with `µ`: UTF-16 columns.
    assert_eq!(d["range"]["start"], json!({"line": 4, "character": 25}));
    assert_eq!(d["severity"], 1, "error");
    assert_eq!(d["code"], "data-race");
    assert_eq!(d["source"], "autosync");
    let msg = d["message"].as_str().unwrap_or_default();
    assert!(msg.starts_with("write-read race on shared array `buf`"), "{msg}");
    assert!(msg.contains("in kernel `shift`"), "{msg}");
    let related = d["relatedInformation"].as_array().cloned().unwrap_or_default();
    assert_eq!(related.len(), 2, "{related:#?}");
    assert_eq!(related[0]["location"]["uri"], uri.as_str());
    assert_eq!(related[0]["location"]["range"], range_of(RACY, write));
    assert!(
        related[0]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("writes `buf["),
        "{related:#?}"
    );
    assert_eq!(related[1]["location"]["range"], range_of(RACY, read));
    assert!(
        related[1]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("reads `buf["),
        "{related:#?}"
    );

    // The quick fix at the race.
    let id = s.request(
        "textDocument/codeAction",
        json!({
            "textDocument": {"uri": uri},
            "range": d["range"],
            "context": {"diagnostics": [d]}
        }),
    );
    let r = s.response(id);
    let actions = r["result"].as_array().cloned().unwrap_or_default();
    assert_eq!(actions.len(), 1, "{r:#}");
    let a = &actions[0];
    assert_eq!(a["kind"], "quickfix");
    assert_eq!(a["isPreferred"], true);
    assert!(
        a["title"]
            .as_str()
            .unwrap_or_default()
            .contains("__syncthreads();"),
        "{a:#}"
    );
    let doc_edit = &a["edit"]["documentChanges"][0];
    assert_eq!(doc_edit["textDocument"]["uri"], uri.as_str());
    assert_eq!(doc_edit["textDocument"]["version"], 1);
    // Exactly what `autosync fix` writes, and it checks clean.
    let fixed = assert_is_the_fix(&s, "shift.cu", RACY, &edits_of(a), &[]);

    // The editor applies the edit and saves: the diagnostics are cleared.
    s.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": fixed}]}),
    );
    s.notify("textDocument/didSave", json!({"textDocument": {"uri": uri}}));
    assert_eq!(s.diagnostics(&uri, 2), Vec::<Value>::new());
    // No code action on a clean file.
    let id = s.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": d["range"], "context": {"diagnostics": []}}),
    );
    assert_eq!(s.response(id)["result"], json!([]));
    assert_eq!(s.shutdown(), 0);
}

#[test]
fn clean_and_malformed_files() {
    let mut s = Server::start(&[]);
    s.initialize(json!({}));
    let clean = s.open("copy.cu", CLEAN, 7);
    assert_eq!(s.diagnostics(&clean, 7), Vec::<Value>::new());

    // A syntax error is one warning where it is, not a crash.
    let text = "__global__ void broken(int *a) {\n  a[threadIdx.x] = ;\n}\n";
    let bad = s.open("broken.cu", text, 1);
    let diags = s.diagnostics(&bad, 1);
    assert_eq!(diags.len(), 1, "{diags:#?}");
    assert_eq!(diags[0]["severity"], 2, "warning");
    assert_eq!(diags[0]["code"], "unsupported");
    assert_eq!(diags[0]["range"]["start"]["line"], 1, "{diags:#?}");
    assert!(
        diags[0]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("could not check"),
        "{diags:#?}"
    );
    // The server goes on: the file, corrected, is clean.
    let fixed = text.replace("= ;", "= 0;");
    s.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": bad, "version": 2}, "contentChanges": [{"text": fixed}]}),
    );
    s.notify("textDocument/didSave", json!({"textDocument": {"uri": bad}}));
    assert_eq!(s.diagnostics(&bad, 2), Vec::<Value>::new());
    // An error in an included file: at the `#include` line, naming the file.
    std::fs::write(s.path("helpers.cuh"), "int twice( {\n").expect("write");
    let text = "#include \"helpers.cuh\"\n__global__ void k(int *a) {\n  a[0] = 1;\n}\n";
    let inc = s.open("includes.cu", text, 1);
    let diags = s.diagnostics(&inc, 1);
    assert_eq!(diags.len(), 1, "{diags:#?}");
    assert_eq!(diags[0]["range"], range_of(text, "#include \"helpers.cuh\""));
    assert!(
        diags[0]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("helpers.cuh:1:1: syntax error"),
        "{diags:#?}"
    );
    // A request the server does not answer is an error answer.
    let id = s.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": clean}, "position": {"line": 0, "character": 0}}),
    );
    assert_eq!(s.response(id)["error"]["code"], -32601);
    // Closing a file clears its diagnostics.
    s.notify("textDocument/didClose", json!({"textDocument": {"uri": bad}}));
    let m = s.wait_for("cleared diagnostics", |m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == bad.as_str()
            && m["params"].get("version").is_none()
    });
    assert_eq!(m["params"]["diagnostics"], json!([]));
    // After `shutdown`, requests are refused and notifications ignored until `exit`.
    let id = s.request("shutdown", Value::Null);
    assert_eq!(s.response(id)["result"], Value::Null);
    let id = s.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": clean}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "context": {"diagnostics": []}}),
    );
    assert_eq!(s.response(id)["error"]["code"], -32600);
    s.notify("textDocument/didClose", json!({"textDocument": {"uri": clean}}));
    s.notify("exit", Value::Null);
    assert_eq!(s.exit_code(), 0);
}

#[test]
fn command_line_options_apply_to_every_document() {
    let mut plain = Server::start(&[]);
    plain.initialize(json!({}));
    let uri = plain.open("turn.cu", GUARDED, 1);
    let d = plain.diagnostics(&uri, 1);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0]["range"], range_of(GUARDED, "t[31 - threadIdx.x]"));
    assert_eq!(plain.shutdown(), 0);

    let mut defined = Server::start(&["-D", "SYNC"]);
    defined.initialize(json!({}));
    let uri = defined.open("turn.cu", GUARDED, 1);
    assert_eq!(defined.diagnostics(&uri, 1), Vec::<Value>::new());
    assert_eq!(defined.shutdown(), 0);
}

#[test]
fn a_newer_version_supersedes_the_check_of_an_older_one() {
    let mut s = Server::start(&["--check-on-change", "--debounce", "50"]);
    s.initialize(json!({"general": {"positionEncodings": ["utf-8", "utf-16"]}}));
    let uri = s.open("shift.cu", RACY, 1);
    // Edited at once (the check of version 1 is stale), then checked on change.
    let clean = RACY.replace("buf[(threadIdx.x + 1) % 64]", "buf[threadIdx.x]");
    s.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": clean}]}),
    );
    assert_eq!(s.diagnostics(&uri, 2), Vec::<Value>::new());
    // The code action is asked of version 2, which is clean.
    let id = s.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 4, "character": 0}, "end": {"line": 4, "character": 1}}, "context": {"diagnostics": []}}),
    );
    let r = s.response(id);
    assert_eq!(r["result"], json!([]), "{r:#}");
    // Nothing of version 1 comes after version 2's result.
    let id = s.request("shutdown", Value::Null);
    s.response(id);
    assert!(
        !s.backlog
            .iter()
            .any(|m| m["params"]["version"] == 1 && m["method"] == "textDocument/publishDiagnostics"),
        "a stale result was published after the newer one: {:#?}",
        s.backlog
    );
    s.notify("exit", Value::Null);
    assert_eq!(s.exit_code(), 0);
}

/// Race-free, but its one kernel takes the solver seconds (with 32-bit wrapping, each
/// array's index is one-to-one only because `p` and `q` are odd: one long query each).
const SLOW_KPL: &str = "kernel slow(shared A[], shared B[], shared C[], p, q) requires p % 2 == 1 && q % 2 == 1 {\n\
                        \x20   A[tid * p * q] = tid;\n\
                        \x20   B[tid * p * q + 1] = tid;\n\
                        \x20   C[(tid + 3) * q * p] = tid;\n\
                        }\n";

#[test]
fn a_newer_version_interrupts_the_solver_work_of_the_check_in_flight() {
    // Issue #34: the check of version 1 is stopped inside its kernel, not after it.
    let mut s = Server::start(&["--wrap", "--check-on-change", "--debounce", "0"]);
    s.initialize(json!({}));
    let uri = s.open("slow.kpl", SLOW_KPL, 1);
    // In the kernel's first long query by now.
    std::thread::sleep(Duration::from_millis(700));
    let racy = "kernel fig2(shared A[]) {\n    local x;\n    x = A[tid + 1];\n    A[tid] = x;\n}\n";
    let changed = Instant::now();
    s.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": racy}]}),
    );
    let d = s.diagnostics(&uri, 2);
    let took = changed.elapsed();
    assert_eq!(d.len(), 1, "{d:#?}");
    assert!(
        took < Duration::from_secs(3),
        "version 2 was checked {took:?} after the change: the check of version 1 ran on"
    );
    // The interrupted check published nothing (an interrupted query is no verdict).
    let id = s.request("shutdown", Value::Null);
    s.response(id);
    assert!(
        !s.backlog
            .iter()
            .any(|m| m["params"]["version"] == 1 && m["method"] == "textDocument/publishDiagnostics"),
        "the interrupted check was published: {:#?}",
        s.backlog
    );
    s.notify("exit", Value::Null);
    assert_eq!(s.exit_code(), 0);
}

#[test]
fn utf8_positions_when_the_client_offers_them() {
    let mut s = Server::start(&[]);
    let init = s.initialize(json!({"general": {"positionEncodings": ["utf-8", "utf-16"]}}));
    assert_eq!(init["capabilities"]["positionEncoding"], "utf-8");
    let uri = s.open("shift.cu", RACY, 1);
    let d = s.diagnostics(&uri, 1);
    // `µ` is two bytes: one column more than in UTF-16.
    assert_eq!(d[0]["range"]["start"], json!({"line": 4, "character": 26}));
    // A client that sends its diagnostics incomplete (Neovim 0.7 drops their ranges)
    // still gets the quick fix: the server goes by its own diagnostics.
    let id = s.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": d[0]["range"], "context": {"diagnostics": [{"code": "data-race"}]}}),
    );
    let r = s.response(id);
    assert_eq!(r["result"][0]["kind"], "quickfix", "{r:#}");
    // Without `documentChanges` support: plain `changes`.
    assert!(
        r["result"][0]["edit"]["changes"][uri.as_str()].is_array(),
        "{r:#}"
    );
    assert_eq!(s.shutdown(), 0);
}

#[test]
fn cancelled_code_actions_and_exit_without_shutdown() {
    let mut s = Server::start(&[]);
    s.initialize(editor_capabilities());
    let uri = s.open("shift.cu", RACY, 1);
    let d = s.diagnostics(&uri, 1);
    let id = s.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": d[0]["range"], "context": {"diagnostics": d}}),
    );
    s.notify("$/cancelRequest", json!({"id": id}));
    // Answered once: the actions, or cancelled.
    let r = s.response(id);
    assert!(r["result"].is_array() || r["error"]["code"] == -32800, "{r:#}");
    // `exit` without `shutdown`: exit code 1, as LSP says.
    s.notify("exit", Value::Null);
    assert_eq!(s.exit_code(), 1);
}

/// The code actions at a diagnostic.
fn actions_at(s: &mut Server, uri: &str, d: &Value) -> Vec<Value> {
    let id = s.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": d["range"], "context": {"diagnostics": [d]}}),
    );
    let r = s.response(id);
    r["result"]
        .as_array()
        .cloned()
        .unwrap_or_else(|| panic!("no actions: {r:#}"))
}

#[test]
fn a_divergent_barrier_is_fixed_as_fix_strip_would() {
    let mut s = Server::start(&[]);
    s.initialize(editor_capabilities());
    let uri = s.open("half.cu", DIVERGENT, 1);
    let diags = s.diagnostics(&uri, 1);
    assert_eq!(diags.len(), 2, "{diags:#?}");
    let div = &diags[0];
    assert_eq!(div["code"], "barrier-divergence");
    assert_eq!(div["severity"], 1);
    assert_eq!(div["range"], range_of(DIVERGENT, "__syncthreads();"));
    assert!(
        div["message"]
            .as_str()
            .unwrap_or_default()
            .starts_with("barrier divergence"),
        "{div:#}"
    );
    let guard = &div["relatedInformation"][0];
    assert_eq!(
        guard["location"]["range"],
        range_of(DIVERGENT, "if (threadIdx.x < 32) {")
    );
    assert!(
        guard["message"]
            .as_str()
            .unwrap_or_default()
            .contains("disagree on this condition"),
        "{guard:#}"
    );
    let race = &diags[1];
    assert_eq!(race["code"], "data-race");
    assert_eq!(race["range"], range_of(DIVERGENT, "s[63 - threadIdx.x]"));

    // `fix` keeps existing barriers and finds no solution; `fix --strip` moves it.
    let actions = actions_at(&mut s, &uri, div);
    assert_eq!(actions.len(), 1, "{actions:#?}");
    assert!(
        actions[0]["title"]
            .as_str()
            .unwrap_or_default()
            .contains("--strip"),
        "{actions:#?}"
    );
    assert_is_the_fix(&s, "half.cu", DIVERGENT, &edits_of(&actions[0]), &["--strip"]);
    assert_eq!(s.shutdown(), 0);
}

#[test]
fn an_unsupported_kernel_is_a_warning_and_blocks_the_quick_fix() {
    let mut s = Server::start(&[]);
    s.initialize(editor_capabilities());
    let uri = s.open("partly.cu", PARTLY, 3);
    let diags = s.diagnostics(&uri, 3);
    assert_eq!(diags.len(), 2, "{diags:#?}");
    assert_eq!(diags[0]["code"], "data-race");
    assert_eq!(diags[0]["range"], range_of(PARTLY, "s[(threadIdx.x + 5) % 32]"));
    let unsupported = &diags[1];
    assert_eq!(unsupported["code"], "unsupported");
    assert_eq!(unsupported["severity"], 2);
    assert_eq!(unsupported["range"], range_of(PARTLY, "asm"));
    let msg = unsupported["message"].as_str().unwrap_or_default();
    assert!(
        msg.contains("kernel `opaque`") && msg.contains("inline PTX `mbarrier.try_wait.shared.b64`"),
        "{msg}"
    );
    // `fix` would not write this file (a kernel has no fix): the action says why.
    let actions = actions_at(&mut s, &uri, &diags[0]);
    assert_eq!(actions.len(), 1, "{actions:#?}");
    assert!(actions[0].get("edit").is_none(), "{actions:#?}");
    let reason = actions[0]["disabled"]["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("`opaque`"), "{reason}");
    assert_eq!(s.shutdown(), 0);
}

/// The same race in two instantiations of a template.
const TEMPLATE: &str = "//--blockDim=32 --gridDim=1\n\
template <int N>\n\
__global__ void rot(int *out) {\n\
  __shared__ int s[N];\n\
  s[threadIdx.x] = out[threadIdx.x];\n\
  out[threadIdx.x] = s[(threadIdx.x + 1) % N];\n\
}\n\
template __global__ void rot<32>(int *);\n\
template __global__ void rot<64>(int *);\n";

#[test]
fn one_diagnostic_for_the_instantiations_of_a_template() {
    let mut s = Server::start(&[]);
    s.initialize(editor_capabilities());
    let uri = s.open("rot.cu", TEMPLATE, 1);
    let diags = s.diagnostics(&uri, 1);
    assert_eq!(diags.len(), 1, "{diags:#?}");
    assert_eq!(diags[0]["range"], range_of(TEMPLATE, "s[(threadIdx.x + 1) % N]"));
    let msg = diags[0]["message"].as_str().unwrap_or_default();
    assert!(
        msg.contains("in kernel `rot<32>`") && msg.contains("also in kernel `rot<64>`"),
        "{msg}"
    );
    // One barrier serves both.
    let actions = actions_at(&mut s, &uri, &diags[0]);
    let edits = edits_of(&actions[0]);
    assert_eq!(edits.len(), 1, "{edits:#?}");
    assert_is_the_fix(&s, "rot.cu", TEMPLATE, &edits, &[]);
    assert_eq!(s.shutdown(), 0);
}

/// A shared-memory race (a barrier fixes it) beside races between blocks (none does).
const MIXED: &str = "//--blockDim=64 --gridDim=4
__global__ void k(int *out, int *g) {
    __shared__ int s[64];
    s[threadIdx.x] = out[threadIdx.x];
    out[threadIdx.x] = s[(threadIdx.x + 1) % 64];
    g[0] = threadIdx.x;
}
";

#[test]
fn the_quick_fix_offers_the_fixable_part_when_races_between_blocks_remain() {
    let mut s = Server::start(&[]);
    s.initialize(editor_capabilities());
    let uri = s.open("mixed.cu", MIXED, 1);
    let diags = s.diagnostics(&uri, 1);
    let race = diags
        .iter()
        .find(|d| d["code"] == "data-race")
        .unwrap_or_else(|| panic!("no data-race: {diags:#?}"))
        .clone();
    assert_eq!(race["range"], range_of(MIXED, "s[(threadIdx.x + 1) % 64]"));
    assert!(
        diags.iter().any(|d| d["code"] == "cross-block-race"),
        "{diags:#?}"
    );
    let actions = actions_at(&mut s, &uri, &race);
    assert_eq!(actions.len(), 1, "{actions:#?}");
    let a = &actions[0];
    assert_eq!(
        a["title"],
        "Insert barriers for the fixable races (3 races between blocks remain)"
    );
    assert_eq!(a["isPreferred"], false);
    assert!(a.get("disabled").is_none(), "{a:#}");
    // Exactly what `fix --partial` writes (and `fix --stdout` prints).
    let fixed = apply(MIXED, &edits_of(a));
    let want = autosync_in(s.dir.path(), &["fix", "--stdout", "mixed.cu"]);
    assert_eq!(fixed, String::from_utf8_lossy(&want.stdout));
    assert!(
        fixed.contains("    s[threadIdx.x] = out[threadIdx.x];\n    __syncthreads();\n"),
        "{fixed}"
    );
    assert_eq!(s.shutdown(), 0);
}

/// Issue #35: a race in a device function of an included header stays a diagnostic of
/// the open document (at the call), and its accesses are related information at the
/// header's own URI and lines, with the call that reaches them.
#[test]
fn a_race_in_a_header_is_related_information_at_the_header() {
    const HEADER: &str = "#pragma once\n__device__ void Comparator(int *s, int i) {\n    int a = s[i];\n    s[i + 1] = a;\n}\n";
    const SORT: &str = "#include \"common.h\"\n__global__ void sortStep(int *g) {\n    __shared__ int s[129];\n    s[threadIdx.x] = g[threadIdx.x];\n    __syncthreads();\n    Comparator(s, threadIdx.x);\n}\nint main() { int *g; sortStep<<<1, 128>>>(g); }\n";
    let mut s = Server::start(&[]);
    s.initialize(json!({}));
    std::fs::write(s.path("common.h"), HEADER).expect("write the header");
    let header_uri = format!("file://{}", s.path("common.h").display());
    let uri = s.open("sort.cu", SORT, 1);
    let diags = s.diagnostics(&uri, 1);
    assert_eq!(diags.len(), 1, "{diags:#?}");
    let d = &diags[0];
    assert_eq!(d["code"], "data-race");
    assert_eq!(d["range"], range_of(SORT, "Comparator(s, threadIdx.x)"));
    let related = d["relatedInformation"].as_array().cloned().unwrap_or_default();
    assert_eq!(related.len(), 3, "{related:#?}");
    assert_eq!(related[0]["location"]["uri"], header_uri.as_str());
    assert_eq!(related[0]["location"]["range"], range_of(HEADER, "s[i]"));
    assert!(
        related[0]["message"]
            .as_str()
            .unwrap_or_default()
            .starts_with(&format!(
                "first access ({}:3, in `Comparator`, called at line 6): ",
                s.path("common.h").display()
            )),
        "{related:#?}"
    );
    assert_eq!(related[1]["location"]["uri"], header_uri.as_str());
    assert_eq!(related[1]["location"]["range"], range_of(HEADER, "s[i + 1] = a"));
    // The call in the open document.
    assert_eq!(related[2]["location"]["uri"], uri.as_str());
    assert_eq!(
        related[2]["location"]["range"],
        range_of(SORT, "Comparator(s, threadIdx.x)")
    );
    assert_eq!(related[2]["message"], "`Comparator` is called here");
    assert_eq!(s.shutdown(), 0);
}

/// Issue #35: a race in a device function of the open document is underlined at its
/// own lines (its last statement too, not at the call), and each call that reaches it is
/// related information: one diagnostic per call site.
#[test]
fn a_race_in_a_device_function_relates_its_call() {
    const TWICE: &str = "//--blockDim=64 --gridDim=1\n__device__ void shiftLeft(int *s, int t) {\n    int next = s[(t + 1) % 64];\n    s[t] = next;\n}\n__global__ void shiftTwice(int *g) {\n    __shared__ int s[64];\n    s[threadIdx.x] = g[threadIdx.x];\n    __syncthreads();\n    shiftLeft(s, threadIdx.x);\n    __syncthreads();\n    shiftLeft(s, threadIdx.x + 0);\n    __syncthreads();\n    g[threadIdx.x] = s[threadIdx.x];\n}\n";
    let mut s = Server::start(&[]);
    s.initialize(json!({}));
    let uri = s.open("twice.cu", TWICE, 1);
    let diags = s.diagnostics(&uri, 1);
    assert_eq!(diags.len(), 2, "{diags:#?}");
    for (d, call) in diags
        .iter()
        .zip(["shiftLeft(s, threadIdx.x)", "shiftLeft(s, threadIdx.x + 0)"])
    {
        assert_eq!(d["code"], "data-race");
        assert_eq!(d["range"], range_of(TWICE, "s[t] = next"));
        let related = d["relatedInformation"].as_array().cloned().unwrap_or_default();
        assert_eq!(related.len(), 3, "{related:#?}");
        assert_eq!(
            related[0]["location"]["range"],
            range_of(TWICE, "s[(t + 1) % 64]")
        );
        let line = if call.ends_with("+ 0)") { 12 } else { 10 };
        let first = related[0]["message"].as_str().unwrap_or_default();
        assert!(
            first.starts_with(&format!(
                "first access (line 3, in `shiftLeft`, called at line {line}): "
            )),
            "{related:#?}"
        );
        assert_eq!(related[1]["location"]["range"], range_of(TWICE, "s[t] = next"));
        assert_eq!(related[2]["location"]["uri"], uri.as_str());
        assert_eq!(related[2]["location"]["range"], range_of(TWICE, call));
        assert_eq!(related[2]["message"], "`shiftLeft` is called here");
        let message = d["message"].as_str().unwrap_or_default();
        assert!(
            message.contains(&format!("both in `shiftLeft`, called at line {line}")),
            "{message}"
        );
    }
    assert_eq!(s.shutdown(), 0);
}

/// The files under `dir` (none when it does not exist).
fn files_under(dir: &std::path::Path) -> usize {
    let Ok(read) = std::fs::read_dir(dir) else {
        return 0;
    };
    read.flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => files_under(&e.path()),
            _ => 1,
        })
        .sum()
}

#[test]
fn results_are_kept_in_the_user_cache_folder_unless_no_cache() {
    // By default in `$XDG_CACHE_HOME/autosync`; the same text checked again is answered
    // from there, with the same diagnostics.
    let mut s = Server::start(&[]);
    s.initialize(json!({}));
    let uri = s.open("shift.cu", RACY, 1);
    let first = s.diagnostics(&uri, 1);
    assert_eq!(first.len(), 1, "{first:#?}");
    let folder = s.path("xdg-cache/autosync");
    assert_eq!(files_under(&folder), 1, "one kernel, one result");
    s.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": RACY}]}),
    );
    s.notify("textDocument/didSave", json!({"textDocument": {"uri": uri}}));
    assert_eq!(s.diagnostics(&uri, 2), first);
    assert_eq!(files_under(&folder), 1);
    assert_eq!(s.shutdown(), 0);
    // `--no-cache` keeps nothing; `--cache DIR` keeps results in DIR instead.
    for (args, kept) in [(&["--no-cache"][..], None), (&["--cache", "mine"], Some("mine"))] {
        let mut s = Server::start(args);
        s.initialize(json!({}));
        let uri = s.open("shift.cu", RACY, 1);
        let d = s.diagnostics(&uri, 1);
        assert_eq!(d.len(), 1, "{args:?}: {d:#?}");
        assert_eq!(d[0]["range"], first[0]["range"], "{args:?}");
        assert!(!s.path("xdg-cache").exists(), "{args:?}");
        if let Some(dir) = kept {
            assert_eq!(files_under(&s.path(dir)), 1, "{args:?}");
        }
        assert_eq!(s.shutdown(), 0);
    }
}
