from dicebase.main import main

main()
