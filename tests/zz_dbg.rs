use stopgate::config::Config;
use stopgate::Gates;
#[test]
fn dbg() {
    let gates = Gates::new(&Config::default()).unwrap();
    for l in std::fs::read_to_string("/tmp/dbg.txt").unwrap().lines() {
        let t = l.replace("\\n", "\n");
        eprintln!(
            "== {:?} :: {}",
            gates.audit_status(&t),
            l.chars().take(90).collect::<String>()
        );
    }
}
