//! Labelled form controls with their error or hint underneath.

use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct TextFieldProps {
    pub id: AttrValue,
    pub label: AttrValue,
    pub value: AttrValue,
    pub oninput: Callback<String>,
    #[prop_or_default]
    pub placeholder: AttrValue,
    #[prop_or(AttrValue::Static("text"))]
    pub input_type: AttrValue,
    /// Shown in red under the field and announced; the field is marked invalid.
    #[prop_or_default]
    pub error: Option<String>,
    #[prop_or_default]
    pub hint: Option<String>,
    /// A multi-line box instead of one line.
    #[prop_or_default]
    pub multiline: bool,
    #[prop_or_default]
    pub inputmode: Option<AttrValue>,
}

#[function_component]
pub fn TextField(props: &TextFieldProps) -> Html {
    let oninput = {
        let cb = props.oninput.clone();
        Callback::from(move |e: InputEvent| {
            let target = e.target_unchecked_into::<web_sys::HtmlInputElement>();
            cb.emit(target.value())
        })
    };
    let described = format!("{}-note", props.id);
    let invalid = props.error.as_ref().map(|_| "true");
    let control = if props.multiline {
        let oninput = {
            let cb = props.oninput.clone();
            Callback::from(move |e: InputEvent| {
                let target = e.target_unchecked_into::<web_sys::HtmlTextAreaElement>();
                cb.emit(target.value())
            })
        };
        html! {
            <textarea id={props.id.clone()} value={props.value.clone()} rows="3" spellcheck="false"
                placeholder={props.placeholder.clone()} aria-invalid={invalid}
                aria-describedby={described.clone()} {oninput} />
        }
    } else {
        html! {
            <input id={props.id.clone()} type={props.input_type.clone()} value={props.value.clone()}
                placeholder={props.placeholder.clone()} aria-invalid={invalid} spellcheck="false"
                autocomplete="off" inputmode={props.inputmode.clone()}
                aria-describedby={described.clone()} {oninput} />
        }
    };
    html! {
        <div class="field">
            <label for={props.id.clone()}>{ props.label.clone() }</label>
            { control }
            <Note id={described} error={props.error.clone()} hint={props.hint.clone()} />
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct CheckFieldProps {
    pub id: AttrValue,
    pub label: AttrValue,
    pub checked: bool,
    pub onchange: Callback<bool>,
    #[prop_or_default]
    pub hint: Option<String>,
}

#[function_component]
pub fn CheckField(props: &CheckFieldProps) -> Html {
    let onchange = {
        let cb = props.onchange.clone();
        Callback::from(move |e: Event| {
            cb.emit(e.target_unchecked_into::<web_sys::HtmlInputElement>().checked())
        })
    };
    let described = format!("{}-note", props.id);
    html! {
        <div class="field check">
            <input id={props.id.clone()} type="checkbox" checked={props.checked}
                aria-describedby={described.clone()} {onchange} />
            <label for={props.id.clone()}>{ props.label.clone() }</label>
            <Note id={described} error={None::<String>} hint={props.hint.clone()} />
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct NoteProps {
    pub id: String,
    pub error: Option<String>,
    pub hint: Option<String>,
}

/// The line under a field: its error in red, else its hint.
#[function_component]
pub fn Note(props: &NoteProps) -> Html {
    match (&props.error, &props.hint) {
        (Some(error), _) => {
            html! { <p id={props.id.clone()} class="note error" role="alert">{ error }</p> }
        }
        (None, Some(hint)) => html! { <p id={props.id.clone()} class="note">{ hint }</p> },
        (None, None) => html! { <span id={props.id.clone()} hidden=true></span> },
    }
}
