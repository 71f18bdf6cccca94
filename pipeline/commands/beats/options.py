"""beats's options (no Blender): what the beat list is written as."""

FORMATS = ("txt", "json")


def add_arguments(parser):
    parser.add_argument("--beats-format", choices=FORMATS, nargs="+", default=["txt"], metavar="FORMAT",
                        help="what each song's beat list is written as, one or more: txt (a beat time per line, in seconds), json "
                             "(the tempo, the beats and the confidence) (default: txt)")
