//! One input of a form made from a JSON Schema (see `core::tools::form`): an elicitation's or a
//! tool's in the tool browser.

use std::cell::RefCell;
use std::rc::Rc;

use serde_json::{Map, Value};
use web_sys::{HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};
use yew::prelude::*;

use gemipanel_core::tools::form::{parse_input, Field, FieldKind};

/// The values typed so far, by field name.
pub type Values = Rc<RefCell<Map<String, Value>>>;

/// One input; every change writes the typed value (or removes it) in `values`.
pub fn form_field(field: &Field, values: &Values) -> Html {
    let current = values.borrow().get(&field.name).cloned().unwrap_or(Value::Null);
    let (name, values) = (field.name.clone(), values.clone());
    let set = move |value: Option<Value>| match value {
        Some(value) => drop(values.borrow_mut().insert(name.clone(), value)),
        None => drop(values.borrow_mut().remove(&name)),
    };
    let input = match &field.kind {
        FieldKind::Boolean => {
            let onchange = Callback::from(move |e: Event| {
                set(Some(Value::Bool(e.target_unchecked_into::<HtmlInputElement>().checked())))
            });
            html! { <input type="checkbox" checked={current == Value::Bool(true)} {onchange} /> }
        }
        FieldKind::Choice(options) | FieldKind::MultiChoice(options) => {
            let multiple = matches!(field.kind, FieldKind::MultiChoice(_));
            let chosen = |v: &str| match &current {
                Value::Array(list) => list.iter().any(|c| c.as_str() == Some(v)),
                other => other.as_str() == Some(v),
            };
            let onchange = Callback::from(move |e: Event| {
                let select: HtmlSelectElement = e.target_unchecked_into();
                if !multiple {
                    return set(Some(Value::String(select.value())));
                }
                let picked = select.selected_options();
                let list = (0..picked.length())
                    .filter_map(|i| picked.item(i))
                    .filter_map(|o| o.get_attribute("value"))
                    .map(Value::String)
                    .collect();
                set(Some(Value::Array(list)));
            });
            html! {
                <select {multiple} {onchange}>
                    if !multiple && current.is_null() { <option value="" selected=true></option> }
                    { for options.iter().map(|(v, l)| html! { <option value={v.clone()} selected={chosen(v)}>{ l }</option> }) }
                </select>
            }
        }
        FieldKind::Json => {
            let value = if current.is_null() { String::new() } else { current.to_string() };
            let oninput = Callback::from(move |e: InputEvent| {
                let text = e.target_unchecked_into::<HtmlTextAreaElement>().value();
                set(parse_input(&FieldKind::Json, &text))
            });
            html! { <textarea class="json" rows="3" spellcheck="false" {value} {oninput} /> }
        }
        kind => {
            let kind = kind.clone();
            let value = match &current {
                Value::String(s) => s.clone(),
                Value::Null => String::new(),
                other => other.to_string(),
            };
            let oninput = Callback::from(move |e: InputEvent| {
                set(parse_input(&kind, &e.target_unchecked_into::<HtmlInputElement>().value()))
            });
            html! { <input {value} {oninput} /> }
        }
    };
    html! {
        <label class="field" data-field={field.name.clone()}>
            <span>{ &field.label }{ if field.required { " *" } else { "" } }</span>
            { input }
            if let Some(d) = &field.description { <small class="hint">{ d }</small> }
        </label>
    }
}
