from dicebase.cli import main

main()
