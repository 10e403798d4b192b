//! Dumps the tree-sitter-cuda syntax tree of a file (a development aid).
fn dump(n: tree_sitter::Node, src: &[u8], depth: usize, field: Option<&str>) {
    let text = n.utf8_text(src).unwrap_or("");
    let short: String = text.chars().take(40).collect::<String>().replace('\n', "⏎");
    println!(
        "{}{}{}{} [{}..{}] {:?}",
        "  ".repeat(depth),
        field.map(|f| format!("{f}: ")).unwrap_or_default(),
        if n.is_named() {
            n.kind().to_string()
        } else {
            format!("'{}'", n.kind())
        },
        if n.is_error() {
            " ERROR"
        } else if n.is_missing() {
            " MISSING"
        } else {
            ""
        },
        n.start_byte(),
        n.end_byte(),
        short
    );
    let mut c = n.walk();
    for (i, ch) in n.children(&mut c).enumerate() {
        dump(ch, src, depth + 1, n.field_name_for_child(i as u32));
    }
}
fn main() {
    let path = std::env::args().nth(1).expect("file");
    let src = std::fs::read(&path).unwrap();
    let mut p = tree_sitter::Parser::new();
    p.set_language(&tree_sitter_cuda::LANGUAGE.into()).unwrap();
    let t = p.parse(&src, None).unwrap();
    dump(t.root_node(), &src, 0, None);
}
