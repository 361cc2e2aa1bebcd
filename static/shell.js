// The static shell of sidepanel.html: its input is worded and focused at once, so that a person
// can type while the panel's module still compiles; the module adopts what was typed
// (gemipanel_browser::early::adopt_shell_input) and removes the shell.
const input = document.getElementById('shell-input');
if (input) {
  const words = chrome.i18n.getMessage('panelInputPlaceholder');
  input.placeholder = words;
  input.setAttribute('aria-label', words);
  input.focus();
}
