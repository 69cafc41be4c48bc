"""One test module per rule, in the folder of the rule's category."""
