// The autosync language server (`autosync lsp`) for VS Code: diagnostics for the
// races and divergent barriers of CUDA (.cu/.cuh) and KPL (.kpl) files, checked on open
// and save, and the barriers `autosync fix` would insert as a quick fix. It runs beside
// clangd (or the C/C++ extension): both attach to the same files.
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration('autosync');
  const serverOptions = {
    command: config.get('path', 'autosync'),
    args: ['lsp', ...config.get('args', [])],
  };
  const clientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'cuda-cpp' },
      { scheme: 'file', pattern: '**/*.{cu,cuh,kpl}' },
    ],
  };
  client = new LanguageClient('autosync', 'autosync', serverOptions, clientOptions);
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
