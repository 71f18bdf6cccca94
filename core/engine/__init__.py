"""Engine export: root motion on a root bone, ready for the engines that read it."""
