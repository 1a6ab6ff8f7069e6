package main

import "fmt"

func runReceiver(args []string) error {
	return fmt.Errorf("the receiver benchmark needs the receiver package")
}
