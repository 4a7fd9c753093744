// The Rulebook extension: starts `rulebook lsp` (over stdio) for the YAML files of the workspace.
// The server answers only for files that read as a spec or a rule scenario; other YAML is left alone.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const [command, ...args] = vscode.workspace.getConfiguration("rulebook").get("command");
  const server = { command, args };
  client = new LanguageClient("rulebook", "Rulebook", { run: server, debug: server }, {
    documentSelector: [{ scheme: "file", language: "yaml" }, { scheme: "untitled", language: "yaml" }],
  });
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
