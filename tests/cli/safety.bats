#!/usr/bin/env bats
# safety.bats - hostile loadfiles and targets: nothing outside the target
# directory is ever touched.

load helpers

setup() {
	make_tmp
	mkdir "$T/outside"
	echo precious > "$T/outside/keep"
}
teardown() { remove_tmp; }

outside_untouched() {
	[ "$(cat "$T/outside/keep")" = precious ]
	[ "$(ls -A "$T/outside")" = keep ]
}

@test "Deltree of \\clients\\..\\.. is refused at load time" {
	printf 'Deltree "\\clients\\..\\.." NT_STATUS_OK\n' > "$T/l.txt"
	run "$DBENCH" -c "$T/l.txt" -D "$T/d" -t 2 1
	[ "$status" -eq 2 ]
	[[ "$output" == *"l.txt:1: path \"\\clients\\..\\..\" leaves the share root"* ]]
	outside_untouched
}

@test "Rename to outside the target is refused at load time" {
	printf 'Mkdir "\\clients" *\nRename "\\clients\\client1\\a" "\\..\\outside\\keep" NT_STATUS_OK\n' > "$T/l.txt"
	run "$DBENCH" -c "$T/l.txt" -D "$T/d" -t 2 1
	[ "$status" -eq 2 ]
	[[ "$output" == *"l.txt:2: path"*"leaves the share root"* ]]
	outside_untouched
}

@test "a symlink in the target leading outside: the run refuses" {
	ln -s "$T/outside" "$T/d/clients"
	run "$DBENCH" -D "$T/d" -t 2 2
	echo "$output"
	[ "$status" -eq 2 ]
	[[ "$output" == *"is a symbolic link"* ]]
	outside_untouched
	[ -L "$T/d/clients" ]
}

@test "a symlink deep in a client's tree: the run refuses" {
	mkdir -p "$T/d/clients/client0"
	ln -s "$T/outside" "$T/d/clients/client0/~dmtmp"
	run "$DBENCH" -D "$T/d" -t 2 1
	[ "$status" -eq 2 ]
	[[ "$output" == *"clients/client0/~dmtmp is a symbolic link"* ]]
	outside_untouched
}

@test "an absolute-looking path stays inside the target" {
	printf 'Mkdir "\\etc" *\nNTCreateX "\\etc\\passwd" 0x40 0x5 1 NT_STATUS_OK\nWriteX 1 0 100 100 NT_STATUS_OK\nClose 1 NT_STATUS_OK\n' > "$T/l.txt"
	local before=$(md5sum /etc/passwd)
	run "$DBENCH" -c "$T/l.txt" -D "$T/d" --run-once --skip-cleanup 1
	[ "$status" -eq 0 ]
	[ "$(md5sum /etc/passwd)" = "$before" ]
	[ "$(stat -c %s "$T/d/etc/passwd")" = 100 ]
}

@test "files that were in the target before the run stay, the run's go" {
	echo mine > "$T/d/keep.txt"
	mkdir "$T/d/mydir"
	run "$DBENCH" -D "$T/d" -t 2 2
	[ "$status" -eq 0 ]
	[ "$(cat "$T/d/keep.txt")" = mine ]
	[ "$(ls -A "$T/d")" = "keep.txt
mydir" ]
}
