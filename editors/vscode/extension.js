// recipelint's VS Code client: starts `recipelint server` (stdio) for the files a recipe is made
// of. Everything else (diagnostics, quick fixes, fix-all, hover) is the server's.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

exports.activate = (context) => {
  const settings = vscode.workspace.getConfiguration("recipelint");
  const hardware = settings.get("hardware");
  const languages = ["shellscript", "yaml", "json", "markdown", "python"];
  client = new LanguageClient(
    "recipelint",
    "recipelint",
    { command: settings.get("path") || "recipelint", args: ["server"] },
    {
      documentSelector: languages.map((language) => ({ scheme: "file", language })),
      initializationOptions: hardware ? { hardware } : {},
    },
  );
  context.subscriptions.push(client);
  return client.start();
};

exports.deactivate = () => (client ? client.stop() : undefined);
