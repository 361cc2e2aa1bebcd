//! What a wasm module's size is made of: its biggest functions and the crates they come from,
//! read from the module cargo built (before wasm-bindgen and wasm-opt, which drop the names).
//! `cargo xtask bench` prints the ten biggest of each, so a cut starts where the bytes are.

use std::collections::HashMap;
use std::path::Path;

use wasmparser::{Name, NameSectionReader, Operator, Parser, Payload, TypeRef, ValType};

use crate::util::Result;

/// Bytes of code per function and per crate, biggest first; data segments count as `(data)`.
#[derive(Debug, Default, PartialEq)]
pub struct Contributors {
    pub functions: Vec<(String, u64)>,
    pub crates: Vec<(String, u64)>,
}

pub fn contributors(module: &Path) -> Result<Contributors> {
    let bytes = std::fs::read(module).map_err(|e| format!("reading {}: {e}", module.display()))?;
    read(&bytes).map_err(|e| format!("{}: {e}", module.display()))
}

fn read(bytes: &[u8]) -> std::result::Result<Contributors, wasmparser::BinaryReaderError> {
    let mut imported = 0u32;
    let mut bodies = Vec::new();
    let mut names = HashMap::new();
    let mut data = 0u64;
    for payload in Parser::new(0).parse_all(bytes) {
        match payload? {
            Payload::ImportSection(reader) => {
                for import in reader.into_imports() {
                    if matches!(import?.ty, TypeRef::Func(_)) {
                        imported += 1;
                    }
                }
            }
            Payload::CodeSectionEntry(body) => {
                let range = body.range();
                bodies.push(range.end - range.start);
            }
            Payload::DataSection(reader) => {
                for segment in reader {
                    data += segment?.data.len() as u64;
                }
            }
            Payload::CustomSection(section) if section.name() == "name" => {
                let reader = NameSectionReader::new(wasmparser::BinaryReader::new(
                    section.data(),
                    section.data_offset(),
                ));
                for name in reader {
                    if let Name::Function(map) = name? {
                        for naming in map {
                            let naming = naming?;
                            names.insert(naming.index, naming.name.to_owned());
                        }
                    }
                }
            }
            _ => {}
        }
    }
    let mut functions: Vec<(String, u64)> = bodies
        .into_iter()
        .enumerate()
        .map(|(i, size)| {
            let index = imported + i as u32;
            let name = names.get(&index).cloned().unwrap_or_else(|| format!("func[{index}]"));
            (format!("{:#}", rustc_demangle::demangle(&name)), size)
        })
        .collect();
    let mut by_crate: HashMap<String, u64> = HashMap::new();
    for (name, size) in &functions {
        *by_crate.entry(crate_of(name)).or_default() += size;
    }
    by_crate.insert("(data)".into(), data);
    let mut crates: Vec<(String, u64)> = by_crate.into_iter().collect();
    crates.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    functions.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Ok(Contributors { functions, crates })
}

/// The crate a demangled path names first: `<serde_json::de::Deserializer<R> as …>::f` is
/// serde_json's, `core::ptr::drop_in_place<…>` core's, a bare symbol `(other)`.
fn crate_of(name: &str) -> String {
    let path = name.trim_start_matches('<').trim_start_matches('&').trim_start_matches("mut ");
    match path.split_once("::") {
        Some((first, _)) if !first.is_empty() && !first.contains([' ', '<', '(']) => {
            first.to_owned()
        }
        _ => "(other)".to_owned(),
    }
}

/// The stack a module cargo built sets aside, in bytes: the start of `__stack_pointer`, its
/// first mutable i32 global (rustc puts the stack first in memory, growing down from there).
pub fn stack_bytes(module: &Path) -> Result<u64> {
    let bytes = std::fs::read(module).map_err(|e| format!("reading {}: {e}", module.display()))?;
    match read_stack(&bytes) {
        Ok(Some(stack)) => Ok(stack),
        Ok(None) => Err(format!("{}: no stack pointer", module.display())),
        Err(e) => Err(format!("{}: {e}", module.display())),
    }
}

fn read_stack(bytes: &[u8]) -> std::result::Result<Option<u64>, wasmparser::BinaryReaderError> {
    for payload in Parser::new(0).parse_all(bytes) {
        let Payload::GlobalSection(reader) = payload? else { continue };
        for global in reader {
            let global = global?;
            if !global.ty.mutable || global.ty.content_type != ValType::I32 {
                continue;
            }
            return match global.init_expr.get_operators_reader().read()? {
                Operator::I32Const { value } => Ok(Some(u64::from(value as u32))),
                _ => Ok(None),
            };
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stack_is_where_the_first_mutable_i32_global_starts() {
        let header = [0, b'a', b's', b'm', 1, 0, 0, 0];
        // (global i64 (i64.const 7)) (global (mut i32) (i32.const 262144))
        let globals = [6, 13, 2, 0x7e, 0, 0x42, 7, 0x0b, 0x7f, 1, 0x41, 0x80, 0x80, 0x10, 0x0b];
        let module = [&header[..], &globals].concat();
        assert_eq!(read_stack(&module).unwrap(), Some(256 * 1024));
        assert_eq!(read_stack(&header).unwrap(), None);
    }

    #[test]
    fn a_path_is_credited_to_its_first_crate() {
        assert_eq!(crate_of("serde_json::de::from_slice"), "serde_json");
        assert_eq!(
            crate_of("<serde_json::de::Deserializer<R> as serde::de::Deserializer>::f"),
            "serde_json"
        );
        assert_eq!(crate_of("core::ptr::drop_in_place<alloc::string::String>"), "core");
        assert_eq!(crate_of("__wbindgen_malloc"), "(other)");
        assert_eq!(crate_of("func[12]"), "(other)");
    }

    #[test]
    fn a_module_is_read_into_functions_and_crates() {
        // (module (import "m" "f" (func)) (func $a::x nop nop) (func $b::y nop) (data "abc"))
        // written by hand: the import shifts the indices the name section uses.
        let mut module = vec![0, b'a', b's', b'm', 1, 0, 0, 0];
        let section = |id: u8, body: &[u8]| {
            let mut s = vec![id, body.len() as u8];
            s.extend_from_slice(body);
            s
        };
        module.extend(section(1, &[1, 0x60, 0, 0])); // one type: [] -> []
        module.extend(section(2, &[1, 1, b'm', 1, b'f', 0, 0])); // import m.f: func type 0
        module.extend(section(3, &[2, 0, 0])); // two functions of type 0
        module.extend(section(5, &[1, 0, 1])); // a memory for the data
        let bodies = [&[4u8, 0, 1, 1, 0x0b][..], &[3, 0, 1, 0x0b]];
        let mut code = vec![2];
        for body in bodies {
            code.extend_from_slice(body);
        }
        module.extend(section(10, &code));
        module.extend(section(11, &[1, 0, 0x41, 0, 0x0b, 3, b'a', b'b', b'c']));
        let mut names = vec![4, b'n', b'a', b'm', b'e'];
        let mut function_names = vec![2, 1, 4];
        function_names.extend_from_slice(b"a::x");
        function_names.extend([2, 4]);
        function_names.extend_from_slice(b"b::y");
        names.push(1);
        names.push(function_names.len() as u8);
        names.extend(function_names);
        module.extend(section(0, &names));
        let found = read(&module).unwrap();
        assert_eq!(found.functions, [("a::x".to_owned(), 4), ("b::y".to_owned(), 3)]);
        assert_eq!(
            found.crates,
            [("a".to_owned(), 4), ("(data)".to_owned(), 3), ("b".to_owned(), 3)]
        );
    }
}
