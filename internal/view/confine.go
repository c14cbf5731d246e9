package view

import (
	"fmt"
	"os"
	"path/filepath"
)

// confined checks that the named files of run directory dir stay in it: each is absent, or a regular file, reached through no link
// that leads out of dir. A run folder someone else wrote may link its
// run.json or trials to /etc/passwd or a FIFO; the viewer follows no link
// out of the folders it was given and reads nothing but plain files.
func confined(dir string, names ...string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, name := range names {
		if err := inside(root, dir, name); err != nil {
			return err
		}
	}
	return nil
}

// inside checks one file of dir, opened as root, as confined does.
func inside(root *os.Root, dir, name string) error {
	fi, err := root.Stat(name)
	switch {
	case os.IsNotExist(err):
		if _, lerr := root.Lstat(name); lerr == nil {
			return fmt.Errorf("%s: a link that leads out of the run's folder (the viewer follows none)", filepath.Join(dir, name))
		}
		return nil
	case err != nil:
		return fmt.Errorf("%s: a link that leads out of the run's folder (the viewer follows none): %w", filepath.Join(dir, name), err)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s: not a regular file", filepath.Join(dir, name))
	}
	return nil
}

// openInside opens dir's file name, refusing a link out of dir and
// anything but a regular file.
func openInside(dir, name string) (*os.File, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	if err := inside(root, dir, name); err != nil {
		return nil, err
	}
	return root.Open(name)
}
