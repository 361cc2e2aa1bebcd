//! The passphrase that locks the stored secrets (`core::vault`): set it, enter it once a
//! browser session, change or remove it. The passphrase goes to the worker in the one message
//! and is kept nowhere.

use gemipanel_browser::chrome::{message, word};
use gemipanel_browser::messaging::request_once;
use gemipanel_core::messages::{Request, Response};
use gemipanel_core::settings::Secret;
use gemipanel_core::vault::VaultState;
use yew::prelude::*;

use super::field::{Note, TextField};

#[derive(Properties, PartialEq)]
pub struct Props {
    pub state: VaultState,
    /// The worker's state changed: status, settings and servers are to be read again.
    pub on_changed: Callback<()>,
}

/// What the card was asked to do.
#[derive(Clone, Copy, PartialEq)]
enum Intent {
    Set,
    Unlock,
    Remove,
}

#[function_component]
pub fn VaultCard(props: &Props) -> Html {
    let passphrase = use_state(String::new);
    let repeat = use_state(String::new);
    let busy = use_state(|| false);
    let error = use_state(|| None::<String>);
    let run = |intent: Intent| {
        let (passphrase, repeat, busy, error) =
            (passphrase.clone(), repeat.clone(), busy.clone(), error.clone());
        let on_changed = props.on_changed.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            if intent == Intent::Set && *passphrase != *repeat {
                return error.set(Some(message("popupVaultMismatch", &[])));
            }
            let secret = Secret::new(passphrase.as_str());
            let request = match intent {
                Intent::Set => Request::SetPassphrase { passphrase: secret, current: None },
                Intent::Unlock => Request::Unlock { passphrase: secret },
                Intent::Remove => Request::RemovePassphrase { passphrase: secret },
            };
            busy.set(true);
            let (passphrase, repeat, busy, error, on_changed) = (
                passphrase.clone(),
                repeat.clone(),
                busy.clone(),
                error.clone(),
                on_changed.clone(),
            );
            wasm_bindgen_futures::spawn_local(async move {
                let answer = request_once(request).await;
                busy.set(false);
                match answer {
                    Ok(Response::Ok) => {
                        passphrase.set(String::new());
                        repeat.set(String::new());
                        error.set(None);
                        on_changed.emit(());
                    }
                    Ok(Response::Error { error: text }) => error.set(Some(word(&text))),
                    Ok(_) => error.set(Some(message("errUnknown", &[]))),
                    Err(e) => error.set(Some(e.to_string())),
                }
            });
        })
    };
    let input = |state: &UseStateHandle<String>| {
        let state = state.clone();
        Callback::from(move |value: String| state.set(value))
    };
    let (heading, text, intent, submit) = match props.state {
        VaultState::Off => ("popupVaultSection", "popupVaultOff", Intent::Set, "popupVaultSet"),
        VaultState::Locked => {
            ("popupVaultLocked", "popupVaultLockedText", Intent::Unlock, "popupVaultUnlock")
        }
        VaultState::Unlocked => {
            ("popupVaultSection", "popupVaultUnlocked", Intent::Remove, "popupVaultRemove")
        }
    };
    let state_name = match props.state {
        VaultState::Off => "off",
        VaultState::Locked => "locked",
        VaultState::Unlocked => "unlocked",
    };
    let label = match intent {
        Intent::Remove => message("popupVaultCurrent", &[]),
        _ => message("popupVaultPassphrase", &[]),
    };
    html! {
        <section class={classes!("card", "vault", (props.state == VaultState::Locked).then_some("attention"))}
            aria-labelledby="vault-heading" data-testid="vault" data-state={state_name}>
            <h2 id="vault-heading">{ message(heading, &[]) }</h2>
            <p class="note">{ message(text, &[]) }</p>
            <form onsubmit={run(intent)}>
                <TextField id="vault-passphrase" label={label} input_type="password"
                    value={(*passphrase).clone()} oninput={input(&passphrase)} />
                if intent == Intent::Set {
                    <TextField id="vault-repeat" label={message("popupVaultRepeat", &[])}
                        input_type="password" value={(*repeat).clone()} oninput={input(&repeat)} />
                }
                <div class="actions">
                    <div class="grow" aria-live="polite">
                        <Note id="vault-note" error={(*error).clone()} hint={None::<String>} />
                    </div>
                    <button type="submit" data-testid="vault-submit"
                        class={if intent == Intent::Remove { "secondary" } else { "primary" }}
                        disabled={*busy || passphrase.is_empty()}>
                        if *busy { <span class="spinner" aria-hidden="true"></span> }
                        { message(submit, &[]) }
                    </button>
                </div>
            </form>
        </section>
    }
}
