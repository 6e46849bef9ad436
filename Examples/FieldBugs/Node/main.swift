import FieldBugs
import PairSimNode

// `field-bugs` is both nodes and every `topology` subcommand, with the field-bug gallery's apps:
// `field-bugs simulate Examples/FieldBugs/Scenarios/01-observer-completion.yaml --app observer-completion-buggy`.
// scripts/field-bugs.sh plays every entry's buggy and fixed app (docs/FIELD-BUGS.md).
PairSimNodeMain.main(apps: FieldBugs.all)
