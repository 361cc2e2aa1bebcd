//! Delete everything (`core::reset`): one button, then a confirmation that names what goes;
//! the worker removes it and the card says what it removed.

use gemipanel_browser::chrome::{counted_message, message, word};
use gemipanel_browser::messaging::request_once;
use gemipanel_core::messages::{Request, Response};
use gemipanel_core::reset::Removed;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    /// Everything went: status, settings and servers are to be read again.
    pub on_deleted: Callback<()>,
    /// The secrets are locked: tokens cannot be read, so they go unrevoked.
    pub locked: bool,
}

#[derive(Clone, PartialEq)]
enum Step {
    Offer,
    Confirm,
    Deleting,
    Done(Removed),
    Failed(String),
}

/// What goes, in the confirmation's words.
const WHAT_GOES: [&str; 8] = [
    "popupDeleteSettings",
    "popupDeleteServers",
    "popupDeleteSignIns",
    "popupDeleteDpopKeys",
    "popupDeleteVault",
    "popupDeleteChats",
    "popupDeleteToolCaches",
    "popupDeleteSessions",
];

#[function_component]
pub fn DeleteEverythingCard(props: &Props) -> Html {
    let step = use_state(|| Step::Offer);
    let cancel_ref = use_node_ref();
    // The confirmation takes the focus on its safe button; Enter does not delete by accident.
    {
        let cancel_ref = cancel_ref.clone();
        use_effect_with((*step).clone(), move |step| {
            if *step == Step::Confirm {
                if let Some(button) = cancel_ref.cast::<web_sys::HtmlElement>() {
                    let _ = button.focus();
                }
            }
        });
    }
    let go = |to: Step| {
        let step = step.clone();
        Callback::from(move |_: MouseEvent| step.set(to.clone()))
    };
    let delete = {
        let (step, on_deleted) = (step.clone(), props.on_deleted.clone());
        Callback::from(move |_: MouseEvent| {
            step.set(Step::Deleting);
            let (step, on_deleted) = (step.clone(), on_deleted.clone());
            wasm_bindgen_futures::spawn_local(async move {
                step.set(match request_once(Request::DeleteEverything).await {
                    Ok(Response::DeletedEverything { removed }) => {
                        on_deleted.emit(());
                        Step::Done(removed)
                    }
                    Ok(Response::Error { error }) => Step::Failed(word(&error)),
                    Ok(_) => Step::Failed(message("errUnknown", &[])),
                    Err(e) => Step::Failed(e.to_string()),
                })
            });
        })
    };
    let offer = html! {
        <button type="button" class="danger" data-testid="delete-everything"
            onclick={go(Step::Confirm)}>{ message("popupDeleteEverything", &[]) }</button>
    };
    let body = match &*step {
        Step::Offer => offer,
        Step::Confirm | Step::Deleting => {
            let busy = *step == Step::Deleting;
            html! {
                <div class="confirm-block" role="group" aria-labelledby="delete-confirm-text">
                    <p id="delete-confirm-text">{ message("popupDeleteConfirm", &[]) }</p>
                    <ul class="what-goes" data-testid="delete-what-goes">
                        { for WHAT_GOES.iter().map(|key| html! { <li>{ message(key, &[]) }</li> }) }
                    </ul>
                    if props.locked {
                        <p class="note warn" data-testid="delete-locked">{ message("popupDeleteLocked", &[]) }</p>
                    }
                    <p class="note">{ message("popupDeleteCannotUndo", &[]) }</p>
                    <div class="actions">
                        <span class="grow"></span>
                        <button type="button" class="secondary" ref={cancel_ref.clone()}
                            disabled={busy} onclick={go(Step::Offer)}>{ message("popupCancel", &[]) }</button>
                        <button type="button" class="danger" data-testid="delete-everything-confirm"
                            disabled={busy} onclick={delete}>
                            if busy { <span class="spinner" aria-hidden="true"></span> }
                            { message("popupDeleteEverythingConfirm", &[]) }
                        </button>
                    </div>
                </div>
            }
        }
        Step::Done(removed) => html! {
            <p class="note ok" role="status" data-testid="delete-everything-done">
                { message("popupDeleteDone", &[
                    &counted("popupDeleteCountServers", removed.servers),
                    &counted("popupDeleteCountSignIns", removed.sign_ins),
                    &counted("popupDeleteCountKeys", removed.dpop_keys),
                    &counted("popupDeleteCountChats", removed.chats),
                ]) }
            </p>
        },
        Step::Failed(error) => html! {
            <>
                <p class="note error" role="alert" data-testid="delete-everything-error">
                    { message("popupDeleteFailed", &[error]) }</p>
                { offer }
            </>
        },
    };
    html! {
        <section class="card delete-everything" aria-labelledby="delete-heading" data-testid="delete-card">
            <h2 id="delete-heading">{ message("popupDeleteSection", &[]) }</h2>
            <p class="note">{ message("popupDeleteText", &[]) }</p>
            { body }
        </section>
    }
}

fn counted(key: &str, count: u32) -> String {
    counted_message(key, count as usize, &[&count.to_string()])
}
