// The welcome page is the popup's module rendering its welcome mode (popup/src/welcome.rs),
// chosen by the body's class; the title is set here in the person's language.
import init from './wasm/popup.js';
document.title = chrome.i18n.getMessage('welcomePageTitle') || document.title;
document.documentElement.lang = chrome.i18n.getUILanguage();
init({ module_or_path: new URL('./wasm/popup_bg.wasm', import.meta.url) });
